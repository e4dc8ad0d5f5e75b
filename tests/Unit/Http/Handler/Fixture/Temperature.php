<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

/** A DTO that validates in its constructor. */
final readonly class Temperature
{
    public function __construct(public float $celsius)
    {
        if ($celsius < -273.15) {
            throw new \InvalidArgumentException('celsius must be at least -273.15.');
        }
    }
}
