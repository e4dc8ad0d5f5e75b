<?php

declare(strict_types=1);

namespace Nexus\Demo\Bank;

/**
 * Demo message: adds $amount to the account's balance.
 *
 * @internal used by the bank demo (Nexus\Demo\BankStory)
 */
final class Deposit implements \Stringable
{
    public function __construct(public readonly int $amount) {}

    public function __toString(): string
    {
        return "Deposit({$this->amount})";
    }
}
