<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Props;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\Internal\Mesh;
use PHPUnit\Framework\TestCase;

/**
 * Backpressure from end to end: a full link or a full remote mailbox makes senders in a fiber
 * wait (with a timeout) and gives senders that cannot wait a dead letter with the reason; a flood
 * towards a slow worker keeps the memory of both bounded.
 */
final class MeshBackpressureTest extends TestCase
{
    use RunsWorkers;

    public function testASenderThatCannotWaitGetsADeadLetterWhileTheLinkIsCongested(): void
    {
        $w0 = $this->worker(0);
        $peer = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $remote = $w0->remoteRef(1, '/user/slow');
        $remote->tell('first');
        $this->runUntil(static fn(): bool => $peer->poll()->batches !== []);
        $peer->reading = false; // the other worker stops reading
        $total = 50_000;
        $deadLetters = $this->systems[0]->deadLetters;
        for ($i = 0; $i < $total && $deadLetters->countFor(DeadLetterReason::LinkCongested) === 0; ++$i) {
            $remote->tell($i . str_repeat('x', 200));
            if ($i % 1000 === 999) {
                $this->loop->tick(false); // frames leave and fill the link
            }
        }
        self::assertGreaterThan(0, $deadLetters->countFor(DeadLetterReason::LinkCongested), 'beyond the high-water mark a message that cannot wait is refused');
        $ask = $remote->ask('are you there?', 30.0);

        self::assertTrue($ask->isSettled(), 'an ask that cannot be sent fails at once');
        $this->expectException(NotDeliveredException::class);
        $this->expectExceptionMessage('link to the worker congested');
        $ask->await();
    }

    public function testASenderInAFiberWaitsAtMostTheTimeoutThenItsMessageIsADeadLetter(): void
    {
        $w0 = $this->worker(0, undeliveredTimeout: 0.3);
        $peer = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $remote = $w0->remoteRef(1, '/user/slow');
        $remote->tell('first');
        $this->runUntil(static fn(): bool => $peer->poll()->batches !== []);
        $peer->reading = false;
        $deadLetters = $this->systems[0]->deadLetters;
        $sent = 0;
        $done = $this->loop->async(static function () use ($remote, $deadLetters, &$sent): void {
            while ($deadLetters->countFor(DeadLetterReason::LinkCongested) === 0) {
                $remote->tell($sent++ . str_repeat('x', 500));
            }
        });
        $started = microtime(true);
        $this->runUntil(static fn(): bool => $done->isSettled());

        self::assertGreaterThanOrEqual(0.29, microtime(true) - $started, 'the sender waited for the link first');
        self::assertSame(1, $deadLetters->countFor(DeadLetterReason::LinkCongested));
    }

    /**
     * A bounded mailbox with the Backpressure policy on the other worker: the link stops
     * delivering while it is full (and so stops reading), and the sender is slowed down; nothing
     * is dropped.
     */
    public function testAFullRemoteMailboxWithBackpressureSlowsTheSenderAndLosesNothing(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $got = [];
        $this->systems[1]->spawn(
            Props::fromBehavior(Behavior::receive(static function (int $n) use (&$got): void {
                $got[] = $n;
            }))->withMailbox(100, OverflowPolicy::Backpressure),
            'narrow',
        );
        $remote = $w0->remoteRef(1, '/user/narrow');
        $total = 20_000;
        $done = $this->loop->async(static function () use ($remote, $total): void {
            for ($i = 0; $i < $total; ++$i) {
                $remote->tell($i);
            }
        });
        $this->runUntil(static function () use (&$got, $done, $total): bool {
            return $done->isSettled() && \count($got) === $total;
        });

        self::assertSame(range(0, $total - 1), $got);
        self::assertSame(0, $this->systems[1]->deadLetters->count(), 'nothing refused at the full mailbox');
        self::assertSame(0, $this->systems[0]->deadLetters->count());
    }

    /**
     * A batch carries each sender once per run of messages from it (BatchLayout). Two senders
     * interleave their messages to a full Backpressure mailbox on the other worker, so the link
     * stops in the middle of runs and resumes there: every message still comes with its own
     * sender, which each reply proves by reaching the actor that sent it, in order.
     */
    public function testADeliveryResumedInTheMiddleOfABatchKeepsEachMessagesSender(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $this->systems[1]->spawn(
            Props::fromBehavior(Behavior::receive(static function (string $message, ActorContext $ctx): void {
                $ctx->reply($message);
            }))->withMailbox(10, OverflowPolicy::Backpressure),
            'narrow',
        );
        $narrow = $w0->remoteRef(1, '/user/narrow');
        $total = 2_000;
        $replies = ['a' => [], 'b' => []];
        foreach (['a', 'b'] as $name) {
            $this->systems[0]->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($name, $narrow, &$replies): void {
                if (\is_int($message)) {
                    $narrow->tell("{$name}{$message}"); // from this actor
                } else {
                    $replies[$name][] = $message;
                }
            }), $name);
        }
        $a = $this->systems[0]->lookup('/user/a');
        $b = $this->systems[0]->lookup('/user/b');
        self::assertNotNull($a);
        self::assertNotNull($b);
        for ($i = 0; $i < $total; ++$i) {
            $a->tell($i);
            $b->tell($i);
        }
        $this->runUntil(static function () use (&$replies, $total): bool {
            return \count($replies['a']) === $total && \count($replies['b']) === $total;
        });

        foreach (['a', 'b'] as $name) {
            self::assertSame(array_map(static fn(int $i): string => "{$name}{$i}", range(0, $total - 1)), $replies[$name], "{$name} got the replies to its own messages, in order");
        }
        self::assertSame(0, $this->systems[1]->deadLetters->count());
        self::assertSame(0, $this->systems[0]->deadLetters->count());
    }

    /**
     * Worker 0 floods a slow actor on worker 1 with 100 MB of messages. Without backpressure the
     * other worker reads them all into the actor's mailbox; with it, its link stops reading once
     * the mailbox holds Mesh::MAILBOX_HIGH_WATER messages, the sender's link fills and the sender
     * waits: memory stays bounded on both sides, and everything arrives.
     */
    public function testAFloodToASlowWorkerKeepsTheMemoryOfBothBounded(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        /** @var int $count */
        $count = 0;
        $inOrder = true;
        $this->systems[1]->spawn(Behavior::receive(static function (string $message) use (&$count, &$inOrder): void {
            $inOrder = $inOrder && (int) substr($message, 0, 6) === $count;
            ++$count;
            for ($i = 0; $i < 15; ++$i) {
                $message = md5($message); // slow: about 10 µs of work per message
            }
        }), 'slow');
        $remote = $w0->remoteRef(1, '/user/slow');
        $remote->tell(str_pad('0', 6, '0', \STR_PAD_LEFT));
        $this->runUntil(static function () use (&$count): bool {
            return $count === 1;
        });
        /** @var int $count */
        $count = 0;
        gc_collect_cycles();
        $before = memory_get_usage();
        $peak = 0;
        $mailboxPeak = 0;
        $slow = $this->systems[1]->lookup('/user/slow');
        self::assertInstanceOf(\Nexus\Actor\Internal\LocalActorRef::class, $slow);
        $sampler = $this->loop->repeat(0.005, static function () use (&$peak, &$mailboxPeak, $slow): void {
            $peak = max($peak, memory_get_usage());
            $mailboxPeak = max($mailboxPeak, $slow->cell->mailbox->count());
        });
        $total = 50_000;
        $padding = str_repeat('p', 2000);
        $done = $this->loop->async(static function () use ($remote, $total, $padding): void {
            for ($i = 0; $i < $total; ++$i) {
                $remote->tell(str_pad((string) $i, 6, '0', \STR_PAD_LEFT) . $padding); // 100 MB in all
            }
        });
        $this->runUntil(static function () use (&$count, $done, $total): bool {
            return $done->isSettled() && $count === $total;
        });
        $this->loop->cancel($sampler);

        self::assertTrue($inOrder);
        self::assertSame(0, $this->systems[0]->deadLetters->count() + $this->systems[1]->deadLetters->count());
        self::assertLessThanOrEqual(Mesh::MAILBOX_HIGH_WATER + 1024, $mailboxPeak, 'the link stopped delivering at the high-water mark');
        $growth = $peak - $before;
        self::assertLessThan(48 * 1024 * 1024, $growth, \sprintf('memory grew by %.1f MB while 100 MB crossed', $growth / 1048576));
    }
}
