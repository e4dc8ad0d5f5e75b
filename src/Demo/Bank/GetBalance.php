<?php

declare(strict_types=1);

namespace Nexus\Demo\Bank;

/**
 * Demo message: asks the account for its balance (the reply is an int).
 *
 * @internal used by the bank demo (Nexus\Demo\BankStory)
 */
final class GetBalance implements \Stringable
{
    public function __toString(): string
    {
        return 'GetBalance';
    }
}
