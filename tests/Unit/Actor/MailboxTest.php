<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\MailboxFullException;
use Nexus\Actor\Mailbox\EnqueueResult;
use Nexus\Actor\Mailbox\Mailbox;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Props;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\TestCase;

final class MailboxTest extends TestCase
{
    public function testEnqueueReportsWhatHappened(): void
    {
        $newest = new Mailbox(2, OverflowPolicy::DropNewest);
        self::assertSame(EnqueueResult::Accepted, $newest->enqueue(1));
        self::assertSame(EnqueueResult::Accepted, $newest->enqueue(2));
        self::assertSame(EnqueueResult::DroppedNewest, $newest->enqueue(3));
        self::assertSame([1, 2], array_column($newest->drain(), 0));

        $oldest = new Mailbox(2, OverflowPolicy::DropOldest);
        $oldest->enqueue(1);
        $oldest->enqueue(2);
        self::assertSame(EnqueueResult::AcceptedDroppingOldest, $oldest->enqueue(3));
        self::assertSame(1, $oldest->message, 'the message pushed out');
        self::assertSame([2, 3], array_column($oldest->drain(), 0));

        foreach ([OverflowPolicy::Reject, OverflowPolicy::Backpressure] as $policy) {
            $full = new Mailbox(1, $policy);
            $full->enqueue(1);
            self::assertSame(EnqueueResult::Full, $full->enqueue(2));
            self::assertSame(1, $full->count());
        }
    }

    public function testOfferQueuesWhileThereIsRoomAndLeavesTheOverflowToEnqueue(): void
    {
        foreach (OverflowPolicy::cases() as $policy) {
            $mailbox = new Mailbox(2, $policy);
            self::assertTrue($mailbox->offer('a', null), $policy->name);
            self::assertTrue($mailbox->offer('b', null), $policy->name);
            self::assertFalse($mailbox->offer('c', null), "{$policy->name}: full, nothing queued, whatever the policy");
            self::assertSame(['a', 'b'], array_column($mailbox->drain(), 0), $policy->name);
        }
        $unbounded = new Mailbox();
        for ($i = 0; $i < 1_000; ++$i) {
            self::assertTrue($unbounded->offer($i, null));
        }
        self::assertSame(1_000, $unbounded->count());
    }

    public function testUnboundedMailboxIsFifoAcrossManyMessages(): void
    {
        $mailbox = new Mailbox();
        for ($i = 0; $i < 1000; ++$i) {
            $mailbox->enqueue($i);
        }
        $seen = [];
        while ($mailbox->dequeue()) {
            $seen[] = $mailbox->message;
            if (\count($seen) === 500) {
                $mailbox->enqueue('late');
            }
        }
        self::assertSame([...range(0, 999), 'late'], $seen);
        self::assertTrue($mailbox->isEmpty());
    }

    public function testDropNewestSendsTheOverflowToDeadLetters(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $ref = $kit->spawn($this->recorder($probe)->withMailbox(2, OverflowPolicy::DropNewest));
        $kit->runUntilIdle();
        foreach ([1, 2, 3] as $n) {
            $ref->tell($n);
        }

        $letter = $probe->expectMessageClass(DeadLetter::class);
        self::assertSame(3, $letter->message);
        self::assertSame(DeadLetterReason::MailboxFull, $letter->reason);
        self::assertSame([['got', 1], ['got', 2]], $probe->receiveMessages(2));
    }

    public function testActorsOfOnePropsEachGetAnEmptyMailboxOfItsCapacity(): void
    {
        $props = Props::fromBehavior(Behavior::ignore())->withMailbox(2, OverflowPolicy::DropNewest);
        $mailboxes = [];
        for ($i = 0; $i < 4; ++$i) { // the first constructs its mailbox, the others clone an empty one
            $mailbox = $props->createMailbox();
            self::assertTrue($mailbox->isEmpty(), "mailbox {$i} starts empty");
            self::assertSame(2, $mailbox->capacity);
            self::assertSame(OverflowPolicy::DropNewest, $mailbox->overflow);
            self::assertSame(EnqueueResult::Accepted, $mailbox->enqueue("a{$i}"));
            self::assertSame(EnqueueResult::Accepted, $mailbox->enqueue("b{$i}"));
            self::assertSame(EnqueueResult::DroppedNewest, $mailbox->enqueue("c{$i}"));
            $mailboxes[] = $mailbox;
        }
        foreach ($mailboxes as $i => $mailbox) {
            self::assertSame([["a{$i}", null], ["b{$i}", null]], $mailbox->drain(), "mailbox {$i} holds only its own messages");
        }
        self::assertCount(4, array_unique(array_map(spl_object_id(...), $mailboxes)));
    }

    public function testDropOldestSendsTheDisplacedMessageToDeadLetters(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $ref = $kit->spawn($this->recorder($probe)->withMailbox(2, OverflowPolicy::DropOldest));
        $kit->runUntilIdle();
        foreach ([1, 2, 3] as $n) {
            $ref->tell($n);
        }

        $letter = $probe->expectMessageClass(DeadLetter::class);
        self::assertSame(1, $letter->message);
        self::assertSame([['got', 2], ['got', 3]], $probe->receiveMessages(2));
    }

    public function testRejectThrowsToTheSenderAndLosesNothing(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn($this->recorder($probe)->withMailbox(1, OverflowPolicy::Reject));
        $kit->runUntilIdle();
        $ref->tell(1);
        try {
            $ref->tell(2);
            self::fail('A full mailbox with the Reject policy must throw.');
        } catch (MailboxFullException $e) {
            self::assertStringContainsString('is full (1 messages)', $e->getMessage());
        }

        self::assertSame(['got', 1], $probe->receiveMessage());
        self::assertSame(0, $kit->system->deadLetters->count());
    }

    public function testBackpressureMakesASenderInAFiberWait(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $slow = $kit->spawn($this->recorder($probe)->withMailbox(2, OverflowPolicy::Backpressure));
        $producer = $kit->spawn(Behavior::receive(static function (mixed $message) use ($slow, $probe): void {
            for ($i = 1; $i <= 6; ++$i) {
                $slow->tell($i);
            }
            $probe->ref->tell('producer done');
        }));
        $producer->tell('go');

        $received = $probe->receiveMessages(7);
        // With room for two, the producer can only finish after the consumer took message 4.
        self::assertGreaterThan(array_search(['got', 4], $received, true), array_search('producer done', $received, true));
        self::assertSame(
            [['got', 1], ['got', 2], ['got', 3], ['got', 4], ['got', 5], ['got', 6]],
            array_values(array_filter($received, \is_array(...))),
        );
        self::assertSame(0, $kit->system->deadLetters->count());
    }

    public function testBackpressureOutsideAFiberRejects(): void
    {
        $kit = new TestKit();
        $ref = $kit->spawn(Props::fromBehavior(Behavior::ignore())->withMailbox(1, OverflowPolicy::Backpressure));
        $kit->runUntilIdle();
        $ref->tell(1);

        $this->expectException(MailboxFullException::class);
        $ref->tell(2);
    }

    public function testSystemMessagesOvertakeUserMessages(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn($this->recorder($probe));
        $probe->watch($ref);
        $kit->runUntilIdle();
        for ($i = 0; $i < 100; ++$i) {
            $ref->tell($i);
        }
        $kit->system->stop($ref);

        $probe->expectTerminated($ref);
        self::assertSame(100, $kit->system->deadLetters->countFor(DeadLetterReason::RecipientTerminated));
    }

    private function recorder(TestProbe $probe): Props
    {
        return Props::fromBehavior(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
            $probe->ref->tell(['got', $message]);
        }));
    }
}
