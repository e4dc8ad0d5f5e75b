<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\EpollDriver;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * C10K on one worker: an HTTP server in a child process holds 10,000 idle connections while a few
 * others keep sending requests, then every one of the 10,000 sends a request and must get its own
 * answer. Both sides run on the epoll driver (the test's own loop too: stream_select() could not
 * hold 10,000 client sockets either). Every wait is for a condition until a generous deadline, for
 * a loaded 2-core machine.
 */
final class TenThousandConnectionsTest extends ListenerProcessTestCase
{
    private const IDLE = 10_000;
    private const ACTIVE = 20;
    private const DEADLINE = 180.0;

    public function testEveryOneOfTenThousandConnectionsIsAnswered(): void
    {
        // Client sockets, the server's connections and some slack, in this process and the child.
        self::requireEpollFor(self::IDLE + self::ACTIVE + 200);
        $address = $this->start('c10k-server.php');
        $this->waitForLog('driver ');
        self::assertSame(1, preg_match('/driver epoll cap (\d+)/', $this->log(), $m), 'the child runs on epoll: ' . $this->log());
        self::assertGreaterThanOrEqual(self::IDLE + self::ACTIVE, (int) ($m[1] ?? 0), 'the default cap is what epoll can hold');

        $loop = new Loop(driver: new EpollDriver(DriverFactory::descriptorLimit()));
        $deadline = microtime(true) + self::DEADLINE;
        $timedOut = false;
        $watchdog = $loop->delay(self::DEADLINE, static function () use ($loop, &$timedOut): void {
            $timedOut = true;
            $loop->stop();
        });
        $loop->unreference($watchdog);

        // A few busy keep-alive clients all along: each sends its next request on every answer.
        $activeAnswers = 0;
        $stop = new \ArrayObject(); // set once the test is done: the busy clients stop
        for ($i = 0; $i < self::ACTIVE; ++$i) {
            $loop->async(static function () use ($loop, $address, $i, &$activeAnswers, $stop): void {
                $connection = Connector::connect($loop, $address)->await();
                $buffer = '';
                while (\count($stop) === 0) {
                    $connection->write("GET /active/{$i} HTTP/1.1\r\nHost: x\r\n\r\n");
                    while (!str_contains($buffer, "ok /active/{$i}")) {
                        $chunk = $connection->read()->await();
                        if ($chunk === null) {
                            return;
                        }
                        $buffer .= $chunk;
                    }
                    $buffer = '';
                    ++$activeAnswers;
                }
                $connection->close();
            });
        }

        // 10,000 idle connections, opened 500 at a time.
        /** @var list<Connection> $idle */
        $idle = [];
        $opening = $loop->async(static function () use ($loop, $address, &$idle): void {
            for ($batch = 0; $batch < self::IDLE; $batch += 500) {
                $attempts = [];
                for ($i = 0; $i < 500; ++$i) {
                    $attempts[] = Connector::connect($loop, $address, 60.0);
                }
                foreach (Future::all($attempts)->await() as $connection) {
                    $idle[] = $connection;
                }
            }
        });
        $this->runUntil($loop, static fn(): bool => $opening->isSettled(), $deadline, $timedOut);
        $opening->await();
        self::assertCount(self::IDLE, $idle);
        $activeBefore = $activeAnswers;
        $this->runUntil($loop, static function () use (&$activeAnswers, $activeBefore): bool {
            return $activeAnswers >= $activeBefore + self::ACTIVE;
        }, $deadline, $timedOut);

        // Now every idle one asks, and each must get its own answer.
        $answers = array_fill(0, self::IDLE, '');
        $complete = 0;
        foreach ($idle as $n => $connection) {
            $connection->onData(static function (string $data) use ($n, &$answers, &$complete): void {
                $answers[$n] .= $data;
                if (str_contains($answers[$n], "ok /idle/{$n}") && str_ends_with($answers[$n], "ok /idle/{$n}")) {
                    ++$complete;
                }
            });
            $connection->write("GET /idle/{$n} HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        $this->runUntil($loop, static function () use (&$complete): bool {
            return $complete >= self::IDLE;
        }, $deadline, $timedOut);
        $stop->append(true);

        self::assertFalse($timedOut, sprintf('answered %d of %d within %.0f s', $complete, self::IDLE, self::DEADLINE));
        self::assertSame(self::IDLE, $complete, 'every connection got its answer');
        foreach ($answers as $n => $answer) {
            self::assertStringStartsWith('HTTP/1.1 200 OK', $answer, "connection {$n}");
        }
        self::assertGreaterThan($activeBefore, $activeAnswers, 'the busy clients were served meanwhile');
        self::assertStringNotContainsString('Cannot accept', $this->log());
        foreach ($idle as $connection) {
            $connection->close();
        }
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
