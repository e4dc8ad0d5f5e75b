<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

/**
 * An event holding a value object: JSON needs toArray/fromArray, the PHP format needs Money
 * allowed.
 */
final readonly class Paid
{
    public function __construct(public Money $amount, public string $by) {}
}
