<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

interface Greeter
{
    public function greet(string $name): string;
}
