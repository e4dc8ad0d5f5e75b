<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\TestKit;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Log\MemoryLogger;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\AssertionFailedError;
use PHPUnit\Framework\TestCase;

final class TestKitTest extends TestCase
{
    public function testNothingRunsUntilTheTestStepsTheSystem(): void
    {
        $kit = new TestKit(throughput: 1);
        $seen = new \ArrayObject();
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message) use ($seen): void {
            $seen[] = $message;
        }));
        $ref->tell(1);
        $ref->tell(2);
        self::assertCount(0, $seen, 'telling does not run the actor');

        $kit->step(); // starts the actor and hands it one message (throughput 1)
        self::assertSame([1], $seen->getArrayCopy());
        $kit->step();
        self::assertSame([1, 2], $seen->getArrayCopy());
    }

    public function testAdvanceFiresTimersInOrderAtTheirOwnInstants(): void
    {
        $kit = new TestKit();
        /** @var \ArrayObject<int, array{float, float}> $fired */
        $fired = new \ArrayObject();
        foreach ([3.0, 1.0, 2.0] as $delay) {
            $kit->loop->delay($delay, static function () use ($fired, $kit, $delay): void {
                $fired[] = [$delay, $kit->now()];
            });
        }
        $start = $kit->now();
        $kit->advance(2.5);

        self::assertSame([[1.0, $start + 1.0], [2.0, $start + 2.0]], $fired->getArrayCopy());
        self::assertSame($start + 2.5, $kit->now());
    }

    public function testVirtualTimeoutsCostNoRealTime(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $wall = hrtime(true);

        $probe->expectNoMessage(3600.0);
        try {
            $probe->receiveMessage(7200.0);
            self::fail('nothing was sent');
        } catch (AssertionFailedError $e) {
            self::assertStringContainsString('No message arrived at /user/probe-1 within 7200.000 s', $e->getMessage());
        }

        self::assertLessThan(0.5, (hrtime(true) - $wall) / 1e9);
        self::assertGreaterThanOrEqual(1000.0 + 3600.0 + 7200.0, $kit->now());
    }

    public function testAFailedExpectationIsATestFailure(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $probe->ref->tell('actual');

        $this->expectException(AssertionFailedError::class);
        $this->expectExceptionMessage("Expected 'expected' but received 'actual'.");
        $probe->expectMessage('expected');
    }

    public function testAProbeWorksOnARealClockToo(): void
    {
        $system = new ActorSystem('real', new MemoryLogger());
        $probe = new TestProbe($system);
        $echo = $system->spawn(Behavior::receive(static function (string $message, ActorContext $ctx): void {
            $ctx->timers()->startSingleTimer('later', "later {$message}", 0.05);
            $ctx->reply("now {$message}");
        }));
        $echo->tell('x', $probe->ref);

        $probe->expectMessage('now x', 1.0);
        $probe->expectNoMessage(0.02);
        $system->shutdown()->await();
        self::assertTrue($system->isTerminated());
    }

    public function testReplyAnswersTheLastSender(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $asker = $kit->spawn(Behavior::receive(static function (string $message, ActorContext $ctx) use ($probe): void {
            if ($message === 'go') {
                $probe->ref->tell('question');
            } else {
                $probe->ref->tell("asker got {$message}");
            }
        }));
        $asker->tell('go');
        $probe->expectMessage('question');
        $probe->reply('answer');

        $probe->expectMessage('asker got answer');
    }
}
