<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * Demo message: asks the account for its balance (the reply is an int).
 *
 * @internal used by DemoCommand
 */
final class GetBalance implements \Stringable
{
    public function __toString(): string
    {
        return 'GetBalance';
    }
}
