<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime\Driver;

use Nexus\Runtime\Driver\PollDriver;
use Nexus\Runtime\Driver\StreamSelectDriver;

final class StreamSelectDriverTest extends PollDriverTestCase
{
    protected function driver(): PollDriver
    {
        return new StreamSelectDriver();
    }

    public function testAClosedStreamFailsThePollAndIsNamedACulprit(): void
    {
        $driver = $this->driver();
        [$a] = $this->pair();
        [$b, $peer] = $this->pair();
        $driver->watchRead(1, $a);
        $driver->watchRead(2, $b);
        fclose($a);
        $read = $write = [];

        self::assertFalse($driver->poll(0.0, $read, $write));
        self::assertSame([1 => 'a closed stream'], $driver->culprits());
        $driver->unwatch(1);
        fwrite($peer, 'x');
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
    }
}
