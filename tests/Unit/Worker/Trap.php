<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

/**
 * A class no worker registers, whose code must never run on decoding: it counts every
 * __wakeup, __unserialize and __destruct.
 */
final class Trap
{
    public static int $ran = 0;
    public string $payload = 'x';

    public function __wakeup(): void
    {
        ++self::$ran;
    }

    public function __destruct()
    {
        ++self::$ran;
    }
}
