<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

final class PoliteGreeter implements Greeter
{
    public function greet(string $name): string
    {
        return "Good day, {$name}.";
    }
}
