<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

final class PlainController
{
    public function show(int $id): string
    {
        return "plain {$id}";
    }

    public static function version(): string
    {
        return 'v1';
    }
}
