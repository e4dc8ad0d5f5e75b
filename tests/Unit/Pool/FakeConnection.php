<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Pool;

/**
 * A connection as the pool sees one: a number, and whether it broke or was closed.
 */
final class FakeConnection
{
    public bool $broken = false;
    public bool $closed = false;
    public bool $dirty = false;
    public int $resets = 0;

    public function __construct(public readonly int $number) {}
}
