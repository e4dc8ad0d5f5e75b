<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

final readonly class Money implements \JsonSerializable
{
    public function __construct(public int $cents) {}

    /** @return array{amount: string} */
    public function jsonSerialize(): array
    {
        return ['amount' => number_format($this->cents / 100, 2)];
    }
}
