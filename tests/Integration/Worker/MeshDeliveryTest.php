<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\MailboxFullException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\Runtime\Future;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\Exception\NotDeliveredException;
use PHPUnit\Framework\TestCase;

/**
 * What becomes of each message between workers: a bad one never sinks its batch, large ones
 * leave in frames under the limit, and one too large is refused where it is sent.
 */
final class MeshDeliveryTest extends TestCase
{
    use RunsWorkers;

    public function testOneBadMessageNeverSinksItsBatchAndEachFailureHasItsOwnReason(): void
    {
        $factory = static function (string $id): Behavior {
            if ($id === 'boom') {
                throw new \RuntimeException('no such account');
            }

            return Behavior::ignore();
        };
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $w0->kind('account', $factory);
        $w1->kind('account', $factory);
        $received = [];
        $this->systems[1]->spawn(Behavior::receive(static function (int $n) use (&$received): void {
            $received[] = $n;
        }), 'collector');
        // One message in hand, one queued, the rest refused.
        $this->systems[1]->spawn(Props::fromBehavior(Behavior::receive(static function (): void {}))->withMailbox(2, OverflowPolicy::Reject), 'tiny');
        $this->systems[1]->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply('too early');
        }), 'leaving');
        $collector = $w0->remoteRef(1, '/user/collector');
        $boom = $w0->remoteRef(1, '/user/account/boom');
        $badName = $w0->remoteRef(1, '/user/account/has space');
        $tiny = $w0->remoteRef(1, '/user/tiny');
        $leaving = $w0->remoteRef(1, '/user/leaving');

        // All in one loop turn: one batch.
        for ($i = 0; $i < 25; ++$i) {
            $collector->tell($i);
        }
        $boom->tell('deposit');
        $badName->tell('deposit');
        $tiny->tell(1);
        $tiny->tell(2);
        $tiny->tell(3);
        $leaving->tell(new PoisonPill());
        $asks = [
            'factory throws' => $boom->ask('balance?', 30.0),
            'invalid name' => $badName->ask('balance?', 30.0),
            'mailbox full' => $tiny->ask('room?', 30.0),
            'recipient stopping' => $leaving->ask('still there?', 30.0),
        ];
        for ($i = 25; $i < 50; ++$i) {
            $collector->tell($i);
        }
        $started = microtime(true);
        $this->runUntil(static function () use (&$received, $asks): bool {
            return \count($received) === 50 && array_filter($asks, static fn(Future $f): bool => !$f->isSettled()) === [];
        });

        self::assertSame(range(0, 49), $received, 'every healthy message of the batch arrived, in order');
        self::assertLessThan(10.0, microtime(true) - $started, 'the asks failed at once, not at their 30 s timeout');
        $expected = [
            'factory throws' => [NotDeliveredException::class, 'no such account'],
            'invalid name' => [NotDeliveredException::class, 'Invalid actor name'],
            'mailbox full' => [MailboxFullException::class, 'mailbox'],
            'recipient stopping' => [RecipientTerminatedException::class, 'recipient terminated'],
        ];
        foreach ($asks as $name => $ask) {
            try {
                $ask->await();
                self::fail("the ask ({$name}) was answered");
            } catch (AskTimeoutException $e) {
                self::fail("the ask ({$name}) timed out instead of failing with its reason");
            } catch (\Throwable $e) {
                self::assertInstanceOf($expected[$name][0], $e, $name);
                self::assertStringContainsString($expected[$name][1], $e->getMessage(), $name);
            }
        }
        $deadLetters = $this->systems[1]->deadLetters;
        self::assertSame(4, $deadLetters->countFor(DeadLetterReason::RecipientNotStarted), 'a tell and an ask to each unstartable entity');
        self::assertSame(2, $deadLetters->countFor(DeadLetterReason::MailboxFull), 'the third tell and the ask to the full mailbox');
        self::assertSame(1, $deadLetters->countFor(DeadLetterReason::RecipientTerminated), 'the ask behind the PoisonPill');
        self::assertFalse($this->logged(1, 'error', 'A loop callback failed'));
    }

    /**
     * 700 messages of 100 KB wait for a worker that is not there yet: 68 MiB, which one frame
     * could not carry (the receiver refuses frames above 16 MiB). They leave in frames of about
     * 1 MiB once it comes, and all arrive.
     */
    public function testLargeMessagesQueuedForARestartingWorkerLeaveInFramesUnderTheLimit(): void
    {
        $w0 = $this->worker(0, undeliveredTimeout: 30.0);
        $sink = $w0->remoteRef(1, '/user/sink');
        for ($i = 0; $i < 700; ++$i) {
            $sink->tell(\sprintf('%04d', $i) . str_repeat('x', 100_000));
        }
        $this->runFor(0.05);
        $w1 = $this->worker(1);
        $got = [];
        $this->sink($got);
        $this->runUntil(static function () use (&$got): bool {
            return \count($got) === 700;
        });

        self::assertSame(range(0, 699), $got);
        self::assertSame(0, $this->systems[0]->deadLetters->count());
    }

    public function testLargeMessagesSentInOneTurnOnALiveLinkAllArrive(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $got = [];
        $this->sink($got);
        $sink = $w0->remoteRef(1, '/user/sink');
        $sink->tell(-1);
        $this->runUntil(static function () use (&$got): bool {
            return $got === [-1]; // the link is up
        });
        /** @var list<int> $got */
        $got = [];
        $done = $this->loop->async(static function () use ($sink): void {
            for ($i = 0; $i < 700; ++$i) {
                $sink->tell(\sprintf('%04d', $i) . str_repeat('y', 100_000));
            }
        });
        $this->runUntil(static function () use (&$got, $done): bool {
            return $done->isSettled() && \count($got) === 700;
        });

        self::assertSame(range(0, 699), $got);
        self::assertSame(0, $this->systems[0]->deadLetters->count());
    }

    public function testASenderThatCannotWaitGetsDeadLettersForWhatTheLinkCannotTakeAndLosesNothingSilently(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $got = [];
        $this->sink($got);
        $sink = $w0->remoteRef(1, '/user/sink');
        $sink->tell(-1);
        $this->runUntil(static function () use (&$got): bool {
            return $got === [-1];
        });
        $got = [];
        for ($i = 0; $i < 700; ++$i) { // from a loop callback: nothing here can wait
            $sink->tell(\sprintf('%04d', $i) . str_repeat('z', 100_000));
        }
        $congested = $this->systems[0]->deadLetters->countFor(DeadLetterReason::LinkCongested);
        $this->runUntil(static function () use (&$got, $congested): bool {
            return \count($got) + $congested === 700;
        });
        $this->runFor(0.1);

        self::assertGreaterThan(0, $congested, 'beyond the link high-water mark, messages became dead letters');
        self::assertSame(700 - $congested, \count($got), 'the others all arrived');
        self::assertSame(range(0, \count($got) - 1), $got, 'in order: the first ones went, the rest were refused');
    }

    public function testAMessageAboveTheCapIsRefusedWhereItIsSent(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $got = [];
        $this->sink($got);
        $sink = $w0->remoteRef(1, '/user/sink');

        try {
            $sink->tell(str_repeat('x', 9 * 1024 * 1024));
            self::fail('a 9 MiB message was taken');
        } catch (MessageTooLargeException $e) {
            self::assertStringContainsString('send a reference to the data instead', $e->getMessage());
        }
        try {
            $sink->ask(['rows' => array_fill(0, 10, str_repeat('r', 1024 * 1024))]);
            self::fail('a 10 MiB array was taken');
        } catch (MessageTooLargeException) {
        }
        $sink->tell(1);
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });

        self::assertSame([1], $got, 'nothing of the refused messages was sent');
        self::assertSame(0, $this->systems[0]->deadLetters->count());
        self::assertSame(['watches' => 0, 'replies' => 0], $this->mesh($w0)->tableSizes(), 'the refused ask left no reply address');
    }

    /**
     * A sink at /user/sink of the last worker started: it records the number each message starts with.
     *
     * @param list<int> $got filled as messages arrive
     */
    private function sink(array &$got): void
    {
        $this->systems[\count($this->systems) - 1]->spawn(Behavior::receive(static function (int|string $message) use (&$got): void {
            $got[] = \is_int($message) ? $message : (int) substr($message, 0, 4);
        }), 'sink');
    }
}
