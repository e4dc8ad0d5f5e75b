<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * Demo message: takes $amount from the account's balance.
 *
 * @internal used by DemoCommand
 */
final class Withdraw implements \Stringable
{
    public function __construct(public readonly int $amount) {}

    public function __toString(): string
    {
        return "Withdraw({$this->amount})";
    }
}
