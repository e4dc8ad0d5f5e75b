<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\Handshake;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\EpollDriver;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Integration\Io\ListenerProcessTestCase;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * 10,000 idle WebSockets on one worker: a WebSocket echo route (Application + HttpServer, the
 * route's Session per connection) in a child process holds 10,000 upgraded connections that say
 * nothing, then every one of them sends a message at once and must get its own echo back. Both
 * sides run on the epoll driver (stream_select() could hold neither the server's connections nor
 * the test's client sockets). Every wait is for a condition until a deadline, for a loaded 2-core
 * machine; skipped, with the reason, only where epoll or the descriptor limit is missing.
 */
final class TenThousandWebSocketsTest extends ListenerProcessTestCase
{
    private const IDLE = 10_000;
    private const BATCH = 500;
    private const DEADLINE = 150.0;

    public function testEveryOneOfTenThousandIdleWebSocketsGetsItsEcho(): void
    {
        // Client sockets, the server's connections and some slack, in this process and the child.
        self::requireEpollFor(self::IDLE + 200);
        $address = $this->start(__DIR__ . '/Fixture/c10k-ws-server.php');
        $this->waitForLog('driver ');
        self::assertSame(1, preg_match('/driver epoll cap (\d+)/', $this->log(), $m), 'the child runs on epoll: ' . $this->log());
        self::assertGreaterThanOrEqual(self::IDLE, (int) ($m[1] ?? 0), 'the default cap is what epoll can hold');

        $loop = new Loop(driver: new EpollDriver(DriverFactory::descriptorLimit()));
        $deadline = microtime(true) + self::DEADLINE;
        $timedOut = false;
        $watchdog = $loop->delay(self::DEADLINE, static function () use ($loop, &$timedOut): void {
            $timedOut = true;
            $loop->stop();
        });
        $loop->unreference($watchdog);

        // 10,000 upgrades, BATCH at a time; then they stay idle.
        /** @var list<Connection> $idle */
        $idle = [];
        $opening = $loop->async(static function () use ($loop, $address, &$idle): void {
            for ($first = 0; $first < self::IDLE; $first += self::BATCH) {
                $attempts = [];
                for ($n = $first; $n < $first + self::BATCH; ++$n) {
                    $attempts[] = $loop->async(static fn(): Connection => self::upgrade($loop, $address, $n));
                }
                foreach (Future::all($attempts)->await() as $connection) {
                    $idle[] = $connection;
                }
            }
        });
        $this->runUntil($loop, static fn(): bool => $opening->isSettled(), $deadline, $timedOut);
        $opening->await();
        self::assertCount(self::IDLE, $idle);

        // Now every one sends a message at once, and each must get its own echo.
        $received = array_fill(0, self::IDLE, '');
        $complete = 0;
        foreach ($idle as $n => $connection) {
            $expected = "\x81" . \chr(\strlen("echo {$n}")) . "echo {$n}"; // a text frame, unmasked, as the server sends it
            $connection->onData(static function (string $data) use ($n, $expected, &$received, &$complete): void {
                $received[$n] .= $data;
                if ($received[$n] === $expected) {
                    ++$complete;
                }
            });
            $connection->write(TestClient::frame(0x1, "echo {$n}"));
        }
        $this->runUntil($loop, static function () use (&$complete): bool {
            return $complete >= self::IDLE;
        }, $deadline, $timedOut);

        self::assertFalse($timedOut, \sprintf('echoed %d of %d within %.0f s', $complete, self::IDLE, self::DEADLINE));
        foreach ($received as $n => $bytes) {
            self::assertSame("\x81" . \chr(\strlen("echo {$n}")) . "echo {$n}", $bytes, "connection {$n} got its own echo and nothing else");
        }
        self::assertStringNotContainsString('Cannot accept', $this->log());
        foreach ($idle as $connection) {
            $connection->close();
        }
    }

    /**
     * Connects, sends the upgrade request for /echo and checks the 101 and its accept key.
     */
    private static function upgrade(Loop $loop, string $address, int $n): Connection
    {
        $connection = Connector::connect($loop, $address, 60.0)->await();
        $key = base64_encode(random_bytes(16));
        $connection->write("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n\r\n");
        $head = '';
        while (!str_contains($head, "\r\n\r\n")) {
            $chunk = $connection->read()->await(60.0);
            if ($chunk === null) {
                throw new \RuntimeException("Connection {$n}: the server closed it before answering the upgrade: " . var_export($head, true));
            }
            $head .= $chunk;
        }
        if (!str_starts_with($head, 'HTTP/1.1 101 ') || stripos($head, "\r\nSec-WebSocket-Accept: " . Handshake::acceptKey($key) . "\r\n") === false) {
            throw new \RuntimeException("Connection {$n}: the upgrade was not accepted: {$head}");
        }
        if (!str_ends_with($head, "\r\n\r\n")) {
            throw new \RuntimeException("Connection {$n}: the server sent more than its 101 before any message: " . var_export($head, true));
        }

        return $connection;
    }

    /**
     * @param \Closure(): bool $done
     */
    private function runUntil(Loop $loop, \Closure $done, float $deadline, bool &$timedOut): void
    {
        while (!$done() && !$timedOut && microtime(true) < $deadline) {
            $loop->tick();
        }
        self::assertTrue($done(), 'the condition held before the deadline; server log: ' . substr($this->log(), -2000));
    }
}
