<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * Demo message: adds $amount to the account's balance.
 *
 * @internal used by DemoCommand
 */
final class Deposit implements \Stringable
{
    public function __construct(public readonly int $amount) {}

    public function __toString(): string
    {
        return "Deposit({$this->amount})";
    }
}
