<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use Nexus\Worker\Internal\PendingReply;
use Nexus\Worker\Internal\ReplyAddresses;
use PHPUnit\Framework\TestCase;

/**
 * The reply addresses of remote asks on a loop with a virtual clock: each ask fails at its own
 * deadline whatever the others' timeouts, an answered ask never fails, and no address keeps the
 * loop running once nothing waits.
 */
final class ReplyAddressesTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private ReplyAddresses $replies;
    /** @var list<array{string, float}> the path of each ask that timed out, and when */
    private array $timedOut = [];

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $system = new ActorSystem('replies', new MemoryLogger(), $this->loop);
        $this->replies = new ReplyAddresses($this->loop, $system->deadLetters, 0, 1, function (PendingReply $ask): \Throwable {
            $this->timedOut[] = [$ask->path, $this->clock->now()];

            return new \RuntimeException("no reply from {$ask->path}");
        });
    }

    public function testEachAskFailsAtItsOwnDeadlineAndAnAnsweredOneNever(): void
    {
        $deferreds = [];
        $addresses = [];
        foreach ([['/user/slow', 0.4], ['/user/answered', 0.1], ['/user/fast', 0.2], ['/user/slow-too', 0.4]] as [$path, $timeout]) {
            /** @var Deferred<mixed> $deferred */
            $deferred = new Deferred($this->loop);
            $deferreds[] = $deferred;
            $addresses[] = $this->replies->forAsk($deferred->future(), $timeout, $path, 1, 'question');
        }
        $this->replies->deliver($addresses[1], 'reply', null, static fn(mixed $message): ?\Throwable => null);
        self::assertSame('reply', $deferreds[1]->future()->await());

        $this->runUntilAllSettled($deferreds);

        self::assertSame([['/user/fast', 0.2], ['/user/slow', 0.4], ['/user/slow-too', 0.4]], $this->timedOut);
        self::assertSame(0, $this->replies->count());
        self::assertFalse($this->loop->isAlive(), 'nothing is left to wait for');
    }

    public function testAsksAnsweredOneAfterTheOtherLeaveNothingThatKeepsTheLoopRunning(): void
    {
        for ($i = 0; $i < 3; ++$i) {
            /** @var Deferred<mixed> $deferred */
            $deferred = new Deferred($this->loop);
            $address = $this->replies->forAsk($deferred->future(), 5.0, '/user/echo', 1, $i);
            self::assertTrue($this->loop->isAlive(), 'an ask waiting keeps the loop running');
            $this->replies->deliver($address, $i, null, static fn(mixed $message): ?\Throwable => null);
            $this->loop->runUntilIdle();
            self::assertSame($i, $deferred->future()->await());
            self::assertFalse($this->loop->isAlive(), 'an answered ask does not');
        }
        /** @var Deferred<mixed> $late */
        $late = new Deferred($this->loop);
        $this->replies->forAsk($late->future(), 1.0, '/user/late', 1, 'question');
        $this->runUntilAllSettled([$late]);

        self::assertSame([['/user/late', 1.0]], $this->timedOut, 'the timer left from the answered asks did not fail it early');
    }

    public function testAnAskWithoutATimeoutWaitsForItsReplyAndDelaysNoOther(): void
    {
        /** @var Deferred<mixed> $forever */
        $forever = new Deferred($this->loop);
        $address = $this->replies->forAsk($forever->future(), \INF, '/user/forever', 1, 'question');
        /** @var Deferred<mixed> $brief */
        $brief = new Deferred($this->loop);
        $this->replies->forAsk($brief->future(), 0.3, '/user/brief', 1, 'question');
        $this->runUntilAllSettled([$brief]);

        self::assertSame([['/user/brief', 0.3]], $this->timedOut);
        self::assertFalse($forever->isSettled());
        self::assertTrue($this->loop->isAlive(), 'the ask still waiting keeps the loop running');
        $this->replies->deliver($address, 'at last', null, static fn(mixed $message): ?\Throwable => null);
        $this->loop->runUntilIdle();
        self::assertSame('at last', $forever->future()->await());
        self::assertFalse($this->loop->isAlive());
    }

    /**
     * @param list<Deferred<mixed>> $deferreds
     */
    private function runUntilAllSettled(array $deferreds): void
    {
        for ($turns = 0; $turns < 100; ++$turns) {
            if (array_filter($deferreds, static fn(Deferred $d): bool => !$d->isSettled()) === []) {
                return;
            }
            $this->loop->tick();
        }
        self::fail('the asks did not settle');
    }
}
