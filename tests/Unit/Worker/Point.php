<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

/**
 * A message class for the codec tests.
 */
final class Point
{
    public function __construct(public readonly int $x, public readonly mixed $y) {}
}
