<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\Db\LatencyProxy;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Listener;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * The latency proxy of `make bench-db` against an echo server on the same loop.
 */
final class DbBenchProxyTest extends TestCase
{
    use RunsTheLoop;

    protected Loop $loop;
    private Listener $echo;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->echo = Listener::listen($this->loop, 'tcp://127.0.0.1:0');
        $this->echo->onConnection(static function (Connection $connection): void {
            $connection->onData(static function (string $bytes) use ($connection): void {
                $connection->write($bytes);
            });
            $connection->onEnd(static function () use ($connection): void {
                $connection->end();
            });
        });
    }

    protected function tearDown(): void
    {
        $this->echo->close();
    }

    public function testEachDirectionIsDelayed(): void
    {
        $direct = $this->roundTrip($this->echo->address());
        $proxy = new LatencyProxy($this->loop, $this->echo->address(), 0.025);
        $delayed = $this->roundTrip($proxy->address());
        $proxy->close();

        // 25 ms there and 25 ms back. Only the lower bound is certain: a timer never fires early,
        // but a busy machine may run it late.
        self::assertGreaterThanOrEqual(0.05, $delayed);
        self::assertGreaterThan(0.0, $direct);
    }

    public function testBytesArriveIntactAndInOrderOnManyConnections(): void
    {
        $proxy = new LatencyProxy($this->loop, $this->echo->address(), 0.001);
        $clients = 40;
        $sent = [];
        $received = [];
        $closed = 0;
        for ($i = 0; $i < $clients; ++$i) {
            $payload = random_bytes(20_000 + $i * 1_000);
            $sent[$i] = $payload;
            $received[$i] = '';
            Connector::connect($this->loop, $proxy->address())->onSettle(
                static function (?\Throwable $error, mixed $connection) use ($i, $payload, &$received, &$closed): void {
                    self::assertNull($error);
                    self::assertInstanceOf(Connection::class, $connection);
                    $connection->onData(static function (string $bytes) use ($i, &$received): void {
                        $received[$i] .= $bytes;
                    });
                    $connection->onClose(static function () use (&$closed): void {
                        ++$closed;
                    });
                    // Chunks of varying size, then a half-close that must reach the server after them.
                    $offset = 0;
                    $size = 1;
                    while ($offset < \strlen($payload)) {
                        $connection->write(substr($payload, $offset, $size));
                        $offset += $size;
                        $size = $size * 3 % 4099 + 1;
                    }
                    $connection->end();
                },
            );
        }
        $this->pollUntil(static function () use (&$closed, $clients): bool {
            return $closed === $clients;
        }, 30.0);

        self::assertSame($clients, $proxy->accepted());
        foreach ($sent as $i => $payload) {
            self::assertSame(\strlen($payload), \strlen($received[$i]), "Connection {$i} lost or gained bytes.");
            self::assertSame(md5($payload), md5($received[$i]), "Connection {$i} got its bytes changed or reordered.");
        }
        $this->pollUntil(static fn(): bool => $proxy->open() === 0);
        self::assertSame(0, $proxy->open());
        $proxy->close();
    }

    public function testAClosedUpstreamClosesTheClient(): void
    {
        $proxy = new LatencyProxy($this->loop, 'tcp://127.0.0.1:' . self::closedPort(), 0.001);
        $closed = false;
        Connector::connect($this->loop, $proxy->address())->onSettle(static function (?\Throwable $error, mixed $connection) use (&$closed): void {
            self::assertInstanceOf(Connection::class, $connection);
            $connection->onClose(static function () use (&$closed): void {
                $closed = true;
            });
            $connection->onData(static function (): void {});
        });
        $this->pollUntil(static function () use (&$closed): bool {
            return $closed;
        });

        self::assertTrue($closed);
        $proxy->close();
    }

    /**
     * Seconds from sending 5 bytes to having them back.
     */
    private function roundTrip(string $address): float
    {
        $elapsed = null;
        Connector::connect($this->loop, $address)->onSettle(static function (?\Throwable $error, mixed $connection) use (&$elapsed): void {
            self::assertInstanceOf(Connection::class, $connection);
            $got = '';
            $start = hrtime(true);
            $connection->onData(static function (string $bytes) use (&$got, &$elapsed, $start, $connection): void {
                $got .= $bytes;
                if ($got === 'hello') {
                    $elapsed = (hrtime(true) - $start) / 1e9;
                    $connection->close();
                }
            });
            $connection->write('hello');
        });
        $this->pollUntil(static function () use (&$elapsed): bool {
            return $elapsed !== null;
        });
        self::assertIsFloat($elapsed);

        return $elapsed;
    }

    private static function closedPort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($socket);
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);

        return (int) substr($name, (int) strrpos($name, ':') + 1);
    }
}
