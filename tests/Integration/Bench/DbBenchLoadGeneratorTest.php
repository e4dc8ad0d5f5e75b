<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\Db\LoadGenerator;
use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * The open-model load generator against tiny HTTP servers on the same loop.
 */
final class DbBenchLoadGeneratorTest extends TestCase
{
    public function testAFastServerGetsTheWholeScheduleWithoutDrops(): void
    {
        $loop = new Loop();
        $server = self::server($loop, 0.0);
        $result = (new LoadGenerator($loop, '127.0.0.1', self::port($server), '/', 16))->run(400.0, 0.2, 0.5);
        $server->close();

        self::assertSame(200, $result->scheduled);
        self::assertSame(200, $result->ok);
        self::assertSame(0, $result->dropped);
        self::assertSame(0, $result->errors);
        self::assertTrue($result->held());
        self::assertEqualsWithDelta(400.0, $result->throughput, 40.0);
        self::assertLessThan(16, $result->connections + 1);
        self::assertNotNull($result->p99Ms);
    }

    public function testASlowServerCausesDropsAndLatencyFromTheSchedule(): void
    {
        $loop = new Loop();
        // 4 connections x 1 request per 50 ms = 80 req/s at most, asked for 200 req/s.
        $server = self::server($loop, 0.05);
        $result = (new LoadGenerator($loop, '127.0.0.1', self::port($server), '/', 4, 1.0))->run(200.0, 0.0, 1.0);
        $server->close();

        self::assertSame(200, $result->scheduled);
        self::assertGreaterThan(80, $result->dropped);
        self::assertFalse($result->held());
        self::assertSame(4, $result->connections);
        self::assertNotNull($result->p50Ms);
        self::assertGreaterThanOrEqual(50.0, $result->p50Ms);
        self::assertLessThan(120.0, $result->throughput);
    }

    private static function server(Loop $loop, float $delay): Listener
    {
        $listener = Listener::listen($loop, 'tcp://127.0.0.1:0');
        $listener->onConnection(static function (Connection $connection) use ($loop, $delay): void {
            $buffer = '';
            $connection->onData(static function (string $bytes) use (&$buffer, $connection, $loop, $delay): void {
                $buffer .= $bytes;
                while (($end = strpos($buffer, "\r\n\r\n")) !== false) {
                    $buffer = substr($buffer, $end + 4);
                    $answer = static function () use ($connection): void {
                        if ($connection->isWritable()) {
                            $connection->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                        }
                    };
                    $delay > 0.0 ? $loop->delay($delay, $answer) : $answer();
                }
            });
        });

        return $listener;
    }

    private static function port(Listener $listener): int
    {
        $address = $listener->address();

        return (int) substr($address, (int) strrpos($address, ':') + 1);
    }
}
