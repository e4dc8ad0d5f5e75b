<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

final class InvokableHandler
{
    public function __invoke(string $name): string
    {
        return "invoked {$name}";
    }
}
