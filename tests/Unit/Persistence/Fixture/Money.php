<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

final readonly class Money
{
    public function __construct(public int $cents, public string $currency) {}
}
