<?php

declare(strict_types=1);

namespace Nexus\Demo\Bank;

/**
 * Demo message: takes $amount from the account's balance.
 *
 * @internal used by the bank demo (Nexus\Demo\BankStory)
 */
final class Withdraw implements \Stringable
{
    public function __construct(public readonly int $amount) {}

    public function __toString(): string
    {
        return "Withdraw({$this->amount})";
    }
}
