<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Message\Terminated;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

/**
 * Long runs of what leaks when something is not freed: asks that time out, watches undone,
 * actors with timers started and stopped. Each ends within a few MB of where it began (after a
 * warm-up round that fills PHP's and the runtime's caches). NEXUS_SOAK_SCALE multiplies the
 * rounds (10 gives the million asks of issue 11; the default keeps the suite fast).
 */
final class SoakTest extends TestCase
{
    private const ALLOWED_GROWTH = 2 * 1024 * 1024;

    public function testAsksManyOfWhichTimeOutLeaveNothingBehind(): void
    {
        $kit = new TestKit();
        // Answers odd numbers, ignores even ones: every second ask times out.
        $oddOnly = $kit->spawn(Behavior::receive(static function (int $n, ActorContext $ctx): void {
            if ($n % 2 === 1) {
                $ctx->reply($n);
            }
        }));
        $round = static function (int $asks) use ($kit, $oddOnly): void {
            $answered = $timedOut = 0;
            for ($sent = 0; $sent < $asks; $sent += 1_000) {
                $futures = [];
                for ($i = 0; $i < 1_000; ++$i) {
                    $futures[] = $oddOnly->ask($sent + $i, 0.5);
                }
                $kit->runUntilIdle();
                $kit->advance(0.5);
                foreach ($futures as $future) {
                    try {
                        $future->await();
                        ++$answered;
                    } catch (AskTimeoutException) {
                        ++$timedOut;
                    }
                }
            }
            self::assertSame([$asks / 2, $asks / 2], [$answered, $timedOut]);
        };

        $this->assertBounded(static fn() => $round(10_000), static fn() => $round(100_000 * self::scale()));
    }

    public function testWatchingAndUnwatchingLeavesNothingBehind(): void
    {
        $kit = new TestKit();
        $target = $kit->spawn(Behavior::ignore());
        $watcher = $kit->spawn(Behavior::receive(static function (string $what, ActorContext $ctx) use ($target): void {
            if ($what === 'watch') {
                $ctx->watch($target);
            } else {
                $ctx->unwatch($target);
            }
        }));
        $round = static function (int $cycles) use ($kit, $watcher): void {
            for ($i = 0; $i < $cycles; ++$i) {
                $watcher->tell('watch');
                $watcher->tell('unwatch');
                if ($i % 1_000 === 0) {
                    $kit->runUntilIdle();
                }
            }
            $kit->runUntilIdle();
        };

        $this->assertBounded(static fn() => $round(10_000), static fn() => $round(100_000 * self::scale()));
    }

    public function testActorsWithTimersStartedAndStoppedLeaveNothingBehind(): void
    {
        $kit = new TestKit();
        $watcher = $kit->probe();
        $round = static function (int $actors) use ($kit, $watcher): void {
            for ($done = 0; $done < $actors; $done += 500) {
                $refs = [];
                for ($i = 0; $i < 500; ++$i) {
                    $refs[] = $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx): Behavior {
                        $ctx->timers()->startTimerAtFixedRate('tick', 'tick', 0.1);
                        $ctx->timers()->startSingleTimer('once', 'once', 5.0);
                        $ctx->setReceiveTimeout(1.0);

                        return Behavior::receive(static function (): void {});
                    }));
                    $watcher->watch($ref);
                }
                $kit->advance(0.25);
                foreach ($refs as $ref) {
                    $kit->system->stop($ref);
                }
                $kit->runUntilIdle();
                for ($i = 0; $i < 500; ++$i) {
                    $watcher->expectMessageClass(Terminated::class);
                }
            }
            self::assertNull($kit->loop->nextTimerDue(), 'no timer of a stopped actor is left');
        };

        $this->assertBounded(static fn() => $round(1_000), static fn() => $round(20_000 * self::scale()));
    }

    public function testFailedTasksNobodyAwaitsAreReportedNotLost(): void
    {
        $kit = new TestKit();
        $kit->loop->async(static function (): never {
            throw new \DomainException('a background task failed');
        });
        $kit->runUntilIdle();

        $errors = $kit->logger->messages('error');
        self::assertCount(1, $errors);
        self::assertStringContainsString('DomainException: a background task failed', $errors[0]);
    }

    private static function scale(): int
    {
        $scale = getenv('NEXUS_SOAK_SCALE');

        return \is_string($scale) && ctype_digit($scale) && (int) $scale > 0 ? (int) $scale : 1;
    }

    /**
     * @param \Closure(): void $warmUp
     * @param \Closure(): void $soak
     */
    private function assertBounded(\Closure $warmUp, \Closure $soak): void
    {
        $warmUp();
        gc_collect_cycles();
        $before = memory_get_usage();
        $soak();
        gc_collect_cycles();
        $growth = memory_get_usage() - $before;
        self::assertLessThan(self::ALLOWED_GROWTH, $growth, \sprintf('memory grew by %.1f MB', $growth / 1048576));
    }
}
