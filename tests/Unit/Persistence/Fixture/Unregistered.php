<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

final readonly class Unregistered
{
    public function __construct(public int $x = 1) {}
}
