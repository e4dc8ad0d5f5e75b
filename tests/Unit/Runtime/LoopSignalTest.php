<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Loop;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;
use PHPUnit\Framework\TestCase;

#[RequiresPhpExtension('pcntl')]
#[RequiresPhpExtension('posix')]
final class LoopSignalTest extends TestCase
{
    private Loop $loop;
    private bool $timedOut = false;
    private bool $asyncSignals = false;

    protected function setUp(): void
    {
        $this->asyncSignals = pcntl_async_signals();
        $this->loop = new Loop();
        $watchdog = $this->loop->delay(2.0, function (): void {
            $this->timedOut = true;
            $this->loop->stop();
        });
        $this->loop->unreference($watchdog);
    }

    protected function tearDown(): void
    {
        pcntl_signal(\SIGUSR1, \SIG_DFL);
        pcntl_signal(\SIGUSR2, \SIG_DFL);
        pcntl_async_signals($this->asyncSignals);
    }

    public function testASignalRunsItsCallbackOnTheLoopNotInsideTheHandler(): void
    {
        /** @var list<array{int, int}> $calls */
        $calls = [];
        $id = $this->loop->onSignal(\SIGUSR1, function (int $signo, int $watcher) use (&$calls): void {
            $calls[] = [$signo, $watcher];
            $this->loop->cancel($watcher);
        });

        posix_kill(posix_getpid(), \SIGUSR1);
        self::assertSame([], $calls, 'the process-level handler only records the signal');

        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame([[\SIGUSR1, $id]], $calls);
    }

    public function testEveryWatcherOfTheSignalIsCalledAndOnlyThose(): void
    {
        /** @var list<string> $calls */
        $calls = [];
        $ids = [];
        $ids[] = $this->loop->onSignal(\SIGUSR1, static function () use (&$calls): void {
            $calls[] = 'first';
        });
        $ids[] = $this->loop->onSignal(\SIGUSR2, static function () use (&$calls): void {
            $calls[] = 'other signal';
        });
        $ids[] = $this->loop->onSignal(\SIGUSR1, function () use (&$calls, &$ids): void {
            $calls[] = 'second';
            foreach ($ids as $id) {
                $this->loop->cancel($id);
            }
        });

        posix_kill(posix_getpid(), \SIGUSR1);
        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame(['first', 'second'], $calls);
    }

    public function testCancellingTheLastWatcherRestoresDefaultHandling(): void
    {
        $first = $this->loop->onSignal(\SIGUSR1, static function (): void {});
        $second = $this->loop->onSignal(\SIGUSR1, static function (): void {});
        self::assertInstanceOf(\Closure::class, pcntl_signal_get_handler(\SIGUSR1));

        $this->loop->cancel($first);
        self::assertInstanceOf(\Closure::class, pcntl_signal_get_handler(\SIGUSR1), 'one watcher is left');

        $this->loop->cancel($second);
        // Not delivered: the default action of SIGUSR1 would end the test process.
        self::assertSame(\SIG_DFL, pcntl_signal_get_handler(\SIGUSR1));
        self::assertFalse($this->loop->isAlive());
    }

    public function testASignalWatcherKeepsTheLoopAliveUnlessUnreferenced(): void
    {
        $id = $this->loop->onSignal(\SIGUSR1, static function (): void {});
        self::assertTrue($this->loop->isAlive());

        $this->loop->unreference($id);
        self::assertFalse($this->loop->isAlive());
        $this->loop->run();

        self::assertFalse($this->timedOut);
        $this->loop->cancel($id);
        self::assertSame(\SIG_DFL, pcntl_signal_get_handler(\SIGUSR1));
    }

    public function testAThrowingSignalCallbackGoesToTheErrorHandler(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        $boom = new \RuntimeException('signal callback failed');
        $this->loop->onSignal(\SIGUSR1, function (int $signo, int $id) use ($boom): void {
            $this->loop->cancel($id);

            throw $boom;
        });

        posix_kill(posix_getpid(), \SIGUSR1);
        $this->loop->run();

        self::assertFalse($this->timedOut);
        self::assertSame([$boom], $errors);
    }
}
