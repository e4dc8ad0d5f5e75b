<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Deferred;

final class BackpressureTest extends SocketTestCase
{
    public function testLargeWriteToSlowReaderFlushesInOrderWithBackpressure(): void
    {
        $payload = '';
        for ($i = 0; $i < 131_072; ++$i) {
            $payload .= sprintf('%063d', $i) . "\n"; // 8 MiB of numbered lines
        }
        $accepted = null;
        $server = $this->listen();
        $server->onConnection(function (Connection $c) use (&$accepted): void {
            $accepted = $this->track($c);
        });
        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        $this->runUntil(static function () use (&$accepted): bool {
            return $accepted !== null;
        });
        \assert($accepted instanceof Connection);

        $drained = 0;
        $accepted->onDrain(static function () use (&$drained): void {
            ++$drained;
        });
        self::assertFalse($accepted->write($payload), 'write() signals backpressure above the high-water mark');
        self::assertGreaterThan(Connection::DEFAULT_HIGH_WATER_MARK, $accepted->bufferedBytes());
        self::assertFalse($accepted->write(''), 'still above the mark');

        // A slow reader: one chunk per timer tick.
        $received = '';
        $done = new Deferred($this->loop);
        $client->onData(static function (string $data) use (&$received, $client, $done, $payload): void {
            $received .= $data;
            if (\strlen($received) >= \strlen($payload)) {
                $done->tryResolve(null);
            }
            $client->pause();
        });
        $resumer = $this->loop->repeat(0.0005, static function () use ($client): void {
            $client->resume();
        });
        $done->future()->await();
        $this->loop->cancel($resumer);

        self::assertSame(\strlen($payload), \strlen($received));
        self::assertSame(md5($payload), md5($received), 'bytes arrive complete and in order');
        self::assertSame(0, $accepted->bufferedBytes());
        self::assertSame(1, $drained);
        self::assertTrue($accepted->write('more'));
    }
}
