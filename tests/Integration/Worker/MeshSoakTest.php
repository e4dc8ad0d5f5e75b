<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Message\Terminated;
use PHPUnit\Framework\TestCase;

/**
 * Long runs of what the mesh keeps per message or per watch: reply addresses of asks passed on
 * to another worker that never answers, and watches of actors on another worker. Each ends with
 * the mesh's tables back to their size and within a few MB of where it began (after a warm-up
 * round). NEXUS_SOAK_SCALE multiplies the rounds.
 */
final class MeshSoakTest extends TestCase
{
    use RunsWorkers;

    private const ALLOWED_GROWTH = 3 * 1024 * 1024;

    protected function timeLimit(): float
    {
        return 60.0 * self::scale();
    }

    /**
     * A local actor forwards each ask to an actor on another worker that never answers: the
     * forwarding address for the reply lives only as long as the ask (0.2 s), not 60 s.
     */
    public function testForwardedAsksThatGetNoReplyLeaveNothingBehind(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::ignore(), 'silent');
        $silent = $w0->remoteRef(1, '/user/silent');
        $relay = $this->systems[0]->spawn(Behavior::receive(static function (int $n, ActorContext $ctx) use ($silent): void {
            $ctx->forward($silent);
        }), 'relay');
        $mesh = $this->mesh($w0);
        $round = function (int $asks) use ($relay, $mesh): void {
            $timedOut = 0;
            for ($sent = 0; $sent < $asks; $sent += 2_000) {
                $futures = [];
                for ($i = 0; $i < 2_000; ++$i) {
                    $futures[] = $relay->ask($sent + $i, 0.2);
                }
                $this->runUntilSettled($futures);
                foreach ($futures as $future) {
                    try {
                        $future->await();
                    } catch (AskTimeoutException) {
                        ++$timedOut;
                    }
                }
            }
            self::assertSame($asks, $timedOut);
            self::assertSame(0, $mesh->tableSizes()['replies'], 'every forwarding address was freed with its ask');
        };

        $this->assertBounded(static fn() => $round(4_000), static fn() => $round(20_000 * self::scale()));
    }

    /**
     * A local actor watches and unwatches actors on another worker, half of which stop while
     * watched: no watch, living or ended, stays in the mesh's table.
     */
    public function testWatchingActorsOnAnotherWorkerLeavesNothingBehind(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $targets = [];
        for ($t = 0; $t < 100; ++$t) {
            $this->systems[1]->spawn(Behavior::ignore(), "target-{$t}");
            $targets[] = $w0->remoteRef(1, "/user/target-{$t}");
        }
        $ended = 0;
        $watcher = $this->systems[0]->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$ended): void {
            if ($message instanceof Terminated) {
                ++$ended;
            } elseif (\is_array($message)) {
                [$ref, $watch] = $message;
                \assert($ref instanceof ActorRef);
                $watch ? $ctx->watch($ref) : $ctx->unwatch($ref);
            }
        }), 'watcher');
        $mesh = $this->mesh($w0);
        $round = function (int $watches) use ($w0, $watcher, $targets, $mesh, &$ended): void {
            $ended = 0;
            for ($done = 0; $done < $watches; $done += 1_000) {
                for ($i = 0; $i < 500; ++$i) {
                    $target = $targets[$i % 100];
                    $watcher->tell([$target, true]);
                    $watcher->tell([$target, false]); // watched and unwatched
                    $watcher->tell([$w0->remoteRef(1, '/user/gone-' . ($done + $i)), true]); // nothing lives there: ends at once
                }
                $expected = $done / 2 + 500;
                $this->runUntil(static function () use (&$ended, $expected): bool {
                    return $ended >= $expected;
                });
            }
            self::assertSame($watches / 2, $ended);
            self::assertSame(0, $mesh->tableSizes()['watches'], 'no watch stays in the table');
        };

        $this->assertBounded(static fn() => $round(10_000), static fn() => $round(100_000 * self::scale()));
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
