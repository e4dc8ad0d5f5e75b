<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Driver\EpollDriver;
use Nexus\Runtime\Driver\StreamSelectDriver;
use Nexus\Runtime\Loop;
use Nexus\Runtime\StreamWatcher;
use PHPUnit\Framework\TestCase;

final class LoopStreamTest extends TestCase
{
    private Loop $loop;
    private bool $timedOut = false;
    /** @var list<resource> */
    private array $streams = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        // A watchdog that never keeps run() going by itself but ends a run that would hang.
        $watchdog = $this->loop->delay(2.0, function (): void {
            $this->timedOut = true;
            $this->loop->stop();
        });
        $this->loop->unreference($watchdog);
    }

    protected function tearDown(): void
    {
        foreach ($this->streams as $stream) {
            if (\is_resource($stream)) {
                fclose($stream);
            }
        }
    }

    public function testOnReadableFiresWithTheStreamAndIdWhenDataArrives(): void
    {
        [$a, $b] = $this->socketPair();
        /** @var list<array{mixed, int, string|false}> $calls */
        $calls = [];
        $id = $this->loop->onReadable($a, function ($stream, int $watcher) use (&$calls): void {
            $calls[] = [$stream, $watcher, fread($stream, 1024)];
            $this->loop->cancel($watcher);
        });
        fwrite($b, 'ping');

        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame([[$a, $id, 'ping']], $calls);
        self::assertFalse($this->loop->isAlive(), 'the cancelled watcher no longer keeps the loop alive');
    }

    public function testAWatcherObjectIsCalledWithItsIdUntilCancelled(): void
    {
        [$a, $b] = $this->socketPair();
        $watcher = new class implements StreamWatcher {
            /** @var list<array{int, string|false}> */
            public array $calls = [];

            /** @var resource|null */
            public mixed $stream = null;

            public function streamReady(int $id): void
            {
                \assert($this->stream !== null);
                $this->calls[] = [$id, fread($this->stream, 1024)];
            }
        };
        $watcher->stream = $a;
        $id = $this->loop->watchReadable($a, $watcher);
        fwrite($b, 'ping');
        $this->loop->tick(false);
        $this->loop->tick(false); // nothing more to read: not called again
        self::assertSame([[$id, 'ping']], $watcher->calls);

        $this->loop->cancel($id);
        fwrite($b, 'pong');
        $this->loop->tick(false);
        self::assertCount(1, $watcher->calls, 'a cancelled watcher is not called');
        self::assertFalse($this->loop->isAlive());

        [$c] = $this->socketPair();
        $writable = new class implements StreamWatcher {
            /** @var list<int> */
            public array $calls = [];

            public function streamReady(int $id): void
            {
                $this->calls[] = $id;
            }
        };
        $writes = $this->loop->watchWritable($c, $writable);
        $this->loop->tick(false);
        $this->loop->cancel($writes);
        self::assertSame([$writes], $writable->calls, 'a write watcher is called when its stream is writable');
    }

    public function testATurnRunsMoreRunnablesWhenItWatchesManyStreams(): void
    {
        $this->loop = new Loop(driver: new StreamSelectDriver()); // its polls cost time per watched stream
        $ran = 0;
        $schedule = function (int $count) use (&$ran): void {
            for ($i = 0; $i < $count; ++$i) {
                $this->loop->scheduler()->schedule(new ClosureRunnable(static function () use (&$ran): void {
                    ++$ran;
                }));
            }
        };
        $schedule(1000);
        $this->loop->tick(false);
        self::assertSame(256, $ran, 'one budget per turn with no stream watched');

        // Polling 768 streams costs a turn as much as a few hundred runnables do: the turn runs
        // one more budget per 256 streams, so the poll stays a small part of the work.
        [$a] = $this->socketPair();
        $ids = [];
        for ($i = 0; $i < 768; ++$i) {
            $ids[] = $this->loop->onReadable($a, static function (): void {});
        }
        $ran = 0;
        $this->loop->tick(false);
        self::assertSame(744, $ran, 'the rest of the queue: up to four budgets');
        $schedule(2000);
        $ran = 0;
        $this->loop->tick(false);
        self::assertSame(1024, $ran);
        foreach ($ids as $id) {
            $this->loop->cancel($id);
        }
    }

    public function testWithEpollATurnRunsMoreRunnablesWhenManyWatchersAreReady(): void
    {
        if (EpollDriver::unsupportedReason() !== null) {
            self::markTestSkipped('epoll is not available here.');
        }
        $this->loop = new Loop(driver: new EpollDriver(4096)); // its polls cost time per ready stream
        $ran = 0;
        $schedule = function (int $count) use (&$ran): void {
            for ($i = 0; $i < $count; ++$i) {
                $this->loop->scheduler()->schedule(new ClosureRunnable(static function () use (&$ran): void {
                    ++$ran;
                }));
            }
        };
        [$a, $b] = $this->socketPair();
        $ids = [];
        for ($i = 0; $i < 768; ++$i) {
            $ids[] = $this->loop->onReadable($a, static function (): void {});
        }
        $schedule(2000);
        $this->loop->tick(false);
        self::assertSame(256, $ran, 'watched but not ready: a poll that costs nothing, one budget');
        fwrite($b, 'x');
        $ran = 0;
        $this->loop->tick(false);
        self::assertGreaterThanOrEqual(1024, $ran, '768 ready watchers: at least four budgets (and one per 64 callbacks, run between them)');
        foreach ($ids as $id) {
            $this->loop->cancel($id);
        }
    }

    public function testOnReadableDoesNotFireWithoutData(): void
    {
        [$a] = $this->socketPair();
        $calls = 0;
        $id = $this->loop->onReadable($a, static function () use (&$calls): void {
            ++$calls;
        });

        for ($i = 0; $i < 5; ++$i) {
            self::assertTrue($this->loop->tick(false));
        }

        self::assertSame(0, $calls);
        $this->loop->cancel($id);
    }

    public function testReadinessIsLevelTriggeredUntilTheWatcherIsCancelled(): void
    {
        [$a, $b] = $this->socketPair();
        $calls = 0;
        // The callback never reads, so the stream stays readable turn after turn.
        $this->loop->onReadable($a, function ($stream, int $id) use (&$calls): void {
            if (++$calls === 3) {
                $this->loop->cancel($id);
            }
        });
        fwrite($b, 'x');

        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame(3, $calls);
    }

    public function testAWatcherCancelledBeforeTheLoopRunsNeverFires(): void
    {
        [$a, $b] = $this->socketPair();
        $calls = 0;
        $id = $this->loop->onReadable($a, static function () use (&$calls): void {
            ++$calls;
        });
        fwrite($b, 'data nobody reads');
        $this->loop->cancel($id);

        $this->loop->run();

        self::assertSame(0, $calls);
        self::assertFalse($this->timedOut);
    }

    public function testOnWritableFiresForAWritableStream(): void
    {
        [$a, $b] = $this->socketPair();
        $this->loop->onWritable($a, function ($stream, int $id): void {
            fwrite($stream, 'written by the loop');
            $this->loop->cancel($id);
        });

        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame('written by the loop', fread($b, 1024));
    }

    public function testSeveralReadyStreamsAreServedInOneTurn(): void
    {
        /** @var array<string, string|false> $received */
        $received = [];
        $ids = [];
        foreach (['one', 'two', 'three'] as $name) {
            [$a, $b] = $this->socketPair();
            $ids[] = $this->loop->onReadable($a, static function ($stream) use (&$received, $name): void {
                $received[$name] = fread($stream, 1024);
            });
            fwrite($b, "data for {$name}");
        }
        [$w] = $this->socketPair();
        $wrote = false;
        $ids[] = $this->loop->onWritable($w, static function () use (&$wrote): void {
            $wrote = true;
        });

        self::assertTrue($this->loop->tick(false));

        self::assertSame(['one' => 'data for one', 'two' => 'data for two', 'three' => 'data for three'], $received);
        self::assertTrue($wrote);
        foreach ($ids as $id) {
            $this->loop->cancel($id);
        }
    }

    public function testAWatcherCancelledByAnotherCallbackInTheSameTurnIsNotCalled(): void
    {
        [$a1, $b1] = $this->socketPair();
        [$a2, $b2] = $this->socketPair();
        /** @var \ArrayObject<int, int> $ids */
        $ids = new \ArrayObject();
        $first = $this->loop->onReadable($a1, function () use ($ids): void {
            foreach ($ids as $id) {
                $this->loop->cancel($id); // itself and the second watcher
            }
        });
        $calledSecond = false;
        $second = $this->loop->onReadable($a2, static function () use (&$calledSecond): void {
            $calledSecond = true;
        });
        $ids->append($first);
        $ids->append($second);
        fwrite($b1, 'x');
        fwrite($b2, 'y');

        $this->loop->run();

        self::assertFalse($calledSecond);
        self::assertFalse($this->timedOut);
        self::assertNotSame($first, $second);
    }

    public function testAThrowingStreamCallbackGoesToTheErrorHandlerAndTheLoopContinues(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        [$bad, $badPeer] = $this->socketPair();
        [$good, $goodPeer] = $this->socketPair();
        $boom = new \RuntimeException('stream callback failed');
        $badId = $this->loop->onReadable($bad, static function () use ($boom): void {
            throw $boom;
        });
        /** @var list<string|false> $read */
        $read = [];
        $this->loop->onReadable($good, function ($stream, int $id) use (&$read, $badId): void {
            $read[] = fread($stream, 1024);
            $this->loop->cancel($id);
            $this->loop->cancel($badId);
        });
        fwrite($badPeer, 'x');
        fwrite($goodPeer, 'served anyway');

        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame([$boom], $errors);
        self::assertSame(['served anyway'], $read);
    }

    public function testWithoutAnErrorHandlerAThrowingStreamCallbackIsRethrownByRun(): void
    {
        [$a, $b] = $this->socketPair();
        $boom = new \RuntimeException('unhandled in a stream callback');
        $id = $this->loop->onReadable($a, static function () use ($boom): void {
            throw $boom;
        });
        fwrite($b, 'x');

        try {
            $this->loop->run();
            self::fail('run() should have rethrown');
        } catch (\RuntimeException $e) {
            self::assertSame($boom, $e);
        } finally {
            $this->loop->cancel($id);
        }
    }

    public function testStreamsAreServedWhileARunnableReschedulesItselfForever(): void
    {
        [$a, $b] = $this->socketPair();
        $state = new \ArrayObject(['stop' => false, 'runs' => 0]);
        $scheduler = $this->loop->scheduler();
        $busy = null;
        $busy = new ClosureRunnable(static function () use (&$busy, $state, $scheduler): void {
            ++$state['runs'];
            if ($state['stop'] === false) {
                \assert($busy instanceof ClosureRunnable);
                $scheduler->schedule($busy);
            }
        });
        $scheduler->schedule($busy);
        $received = false;
        $this->loop->onReadable($a, function ($stream, int $id) use (&$received, $state): void {
            $received = fread($stream, 1024) === 'hello';
            $state['stop'] = true;
            $this->loop->cancel($id);
        });
        fwrite($b, 'hello');

        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertTrue($received);
        self::assertGreaterThan(0, $state['runs']);
    }

    /**
     * @return array{resource, resource}
     */
    private function socketPair(): array
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        [$a, $b] = $pair;
        $this->streams[] = $a;
        $this->streams[] = $b;

        return [$a, $b];
    }
}
