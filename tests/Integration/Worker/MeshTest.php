<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\Terminated;
use Nexus\Runtime\Future;
use Nexus\Worker\Exception\DeliveryUnknownException;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\Exception\UnregisteredMessageClassException;
use Nexus\Worker\RemoteActorRef;
use Nexus\Worker\Transport\PeerLink;
use PHPUnit\Framework\TestCase;

/**
 * Two workers of a pool in one process: each has its own actor system and its end of the links,
 * on one loop, over real Unix sockets in a real runtime directory.
 */
final class MeshTest extends TestCase
{
    use RunsWorkers;

    public function testTellsCrossInOrderAndRepliesComeBack(): void
    {
        $workers = [$this->worker(0), $this->worker(1)];
        $received = [];
        $collector = Behavior::receive(static function (int $n, ActorContext $ctx) use (&$received): void {
            $received[] = $n;
            if ($n === 999) {
                $ctx->reply('all');
            }
        });
        $owner = $workers[0]->ownerOf('collector');
        $workers[$owner]->named('collector', $collector);
        $remote = $workers[1 - $owner]->named('collector', $collector);

        self::assertInstanceOf(RemoteActorRef::class, $remote);
        self::assertSame($owner, $remote->worker);
        for ($i = 0; $i < 999; ++$i) {
            $remote->tell($i);
        }
        $reply = $remote->ask(999, 5.0);
        $this->runUntil(static fn(): bool => $reply->isSettled());

        self::assertSame('all', $reply->await());
        self::assertSame(range(0, 999), $received);
    }

    public function testAnAskToAPathWhereNoActorLivesFailsAtOnce(): void
    {
        [$w0] = [$this->worker(0), $this->worker(1)];
        $ask = $w0->remoteRef(1, '/user/nobody')->ask('hello', 5.0);
        $started = microtime(true);
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertLessThan(1.0, microtime(true) - $started);
        $this->expectException(RecipientTerminatedException::class);
        $this->expectExceptionMessage('no actor lives at /user/nobody on worker 1');
        $ask->await();
    }

    public function testAnUnansweredRemoteAskTimesOut(): void
    {
        [$w0, $w1] = [$this->worker(0), $this->worker(1)];
        $this->systems[1]->spawn(Behavior::ignore(), 'silent');
        $ask = $w0->remoteRef(1, '/user/silent')->ask('hello', 0.2);
        $answered = $w0->remoteRef(1, '/user/silent')->ask('hello again', 0.2);
        $this->runUntil(static fn(): bool => $ask->isSettled() && $answered->isSettled());

        try {
            $ask->await();
            self::fail('an unanswered ask settled without an error');
        } catch (AskTimeoutException $e) {
            self::assertSame('No reply from /user/silent on worker 1 within 0.200 s to string.', $e->getMessage());
        }
        self::assertSame(2, $this->systems[0]->stats->askTimeouts, 'both timeouts counted');
        self::assertSame(0, $this->mesh($w0)->tableSizes()['replies'], 'the reply addresses went with their timeouts');
    }

    public function testEntitiesStartOnTheirOwnerOnFirstUseAndCountExactlyFromEveryWorker(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $counter = static fn(): Behavior => Behavior::withState(0, static function (int $value, string $op, ActorContext $ctx): int {
            $ctx->reply($op === 'increment' ? ++$value : $value);

            return $value;
        });
        $kinds = [$w0->kind('counter', $counter), $w1->kind('counter', $counter)];
        $names = ['apples', 'pears', 'plums', 'figs', 'kiwis', 'limes'];
        $asks = [];
        foreach ($names as $name) {
            for ($i = 0; $i < 20; ++$i) {
                $asks[] = $kinds[$i % 2]->ref($name)->ask('increment');
            }
        }
        $this->runUntil(static fn(): bool => array_filter($asks, static fn(Future $f): bool => !$f->isSettled()) === []);
        $totals = [];
        foreach ($names as $name) {
            $totals[$name] = $kinds[1]->ref($name)->ask('get');
        }
        $this->runUntil(static fn(): bool => array_filter($totals, static fn(Future $f): bool => !$f->isSettled()) === []);

        $owners = [];
        foreach ($names as $name) {
            self::assertSame(20, $totals[$name]->await(), "counter {$name}");
            $owner = $w0->ownerOf("counter/{$name}");
            $owners[$owner] = true;
            self::assertNotNull($this->systems[$owner]->lookup("/user/counter/{$name}"));
            self::assertNull($this->systems[1 - $owner]->lookup("/user/counter/{$name}"), "{$name} lives on one worker only");
        }
        self::assertCount(2, $owners, 'six names spread over both workers');
    }

    public function testObjectsCrossOnlyWhenTheirClassIsRegistered(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $got = null;
        $this->systems[1]->spawn(Behavior::receive(static function (Order $order, ActorContext $ctx) use (&$got): void {
            $got = $order;
            $ctx->reply(\count($order->items));
        }), 'shop');
        $shop = $w0->remoteRef(1, '/user/shop');
        $order = new Order('ada', [['tea', 2.5, 2]], 'silver');

        try {
            $shop->tell($order);
            self::fail('An unregistered class must not cross.');
        } catch (UnregisteredMessageClassException $e) {
            self::assertStringContainsString('registerMessage(' . Order::class . '::class)', $e->getMessage());
        }
        try {
            $shop->tell(['nested' => [new \ArrayObject()]]);
            self::fail('An unregistered class deep inside an array must not cross either.');
        } catch (UnregisteredMessageClassException) {
        }

        $w0->registerMessage(Order::class);
        $w1->registerMessage(Order::class);
        $reply = $shop->ask($order);
        $this->runUntil(static fn(): bool => $reply->isSettled());

        self::assertSame(1, $reply->await());
        self::assertInstanceOf(Order::class, $got);
        self::assertEquals($order, $got);
        self::assertSame('silver', $got->tier());
    }

    public function testMessagesWaitForAWorkerThatStartsLateAndBecomeDeadLettersWhenItNeverComes(): void
    {
        // Long enough for worker 1 to start on a loaded machine (the message waits for it that long).
        $w0 = $this->worker(0, undeliveredTimeout: 10.0);
        $late = $w0->remoteRef(1, '/user/late');
        $late->tell('early');
        $this->runFor(0.1);
        $got = [];
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::receive(static function (string $message) use (&$got): void {
            $got[] = $message;
        }), 'late');
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });
        self::assertSame(['early'], $got);

        $never = $this->worker(0, undeliveredTimeout: 0.3, count: 3, dir: $this->dir . '-never');
        $never->remoteRef(2, '/user/anyone')->tell('lost?');
        $ask = $never->remoteRef(2, '/user/anyone')->ask('anyone?', 5.0);
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertSame(2, $this->systems[2]->deadLetters->countFor(DeadLetterReason::WorkerUnavailable));
        $this->expectException(NotDeliveredException::class);
        $this->expectExceptionMessage('Not delivered');
        $ask->await();
    }

    public function testARepliesToALocalAskComeBackThroughAnotherWorker(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $this->systems[1]->spawn(Behavior::receive(static function (string $message, ActorContext $ctx): void {
            $ctx->reply("echo: {$message}");
        }), 'echo');
        $remoteEcho = $w0->remoteRef(1, '/user/echo');
        $relay = $this->systems[0]->spawn(Behavior::receive(static function (string $message, ActorContext $ctx) use ($remoteEcho): void {
            $ctx->forward($remoteEcho);
        }), 'relay');
        $ask = $relay->ask('hi');
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertSame('echo: hi', $ask->await());
    }

    public function testMessagesAWorkerDidNotConfirmBeforeItsLinkBrokeFailAsDeliveryUnknown(): void
    {
        $w0 = $this->worker(0);
        $impostor = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $w0->remoteRef(1, '/user/anyone')->tell('maybe lost');
        $ask = $w0->remoteRef(1, '/user/anyone')->ask('anyone?', 5.0);
        $this->runUntil(static fn(): bool => \count($impostor->poll()->batches) === 1); // the first batch arrived
        $impostor->close(); // and the "worker" dies without acknowledging it
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertSame(2, $this->systems[0]->deadLetters->countFor(DeadLetterReason::WorkerLost));
        $this->expectException(DeliveryUnknownException::class);
        $this->expectExceptionMessage('Delivery unknown');
        $ask->await();
    }

    public function testANamedActorIsFoundByLookupOnEveryWorker(): void
    {
        $workers = [$this->worker(0), $this->worker(1)];
        $owner = $workers[0]->ownerOf('books');
        $local = $workers[$owner]->named('books', Behavior::ignore());
        $remote = $workers[1 - $owner]->named('books', Behavior::ignore());

        self::assertSame($local, $this->systems[$owner]->lookup('/user/books'));
        self::assertSame($remote, $this->systems[1 - $owner]->lookup('/user/books'));
        self::assertInstanceOf(RemoteActorRef::class, $remote);
        self::assertNull($this->systems[1 - $owner]->lookup('/user/other'));
    }

    public function testAnActorWatchesAnActorOnAnotherWorkerAndGetsTerminatedOnce(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::ignore(), 'target');
        $target = $w0->remoteRef(1, '/user/target');
        $got = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($target, &$got): Behavior {
            $ctx->watch($target);

            return Behavior::receive(static function (mixed $message) use (&$got): void {
                $got[] = $message;
            });
        }), 'watcher');
        $this->runFor(0.05);
        self::assertCount(0, $got, 'nothing while the target lives');

        $target->tell(new PoisonPill());
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });
        $this->runFor(0.05);

        self::assertCount(1, $got);
        self::assertInstanceOf(Terminated::class, $got[0]);
        self::assertSame($target, $got[0]->ref, 'Terminated carries the ref that was watched');
    }

    public function testWatchingWhereNothingLivesEndsAtOnceAndUnwatchingStopsTheNotice(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::ignore(), 'quiet');
        $nobody = $w0->remoteRef(1, '/user/nobody');
        $quiet = $w0->remoteRef(1, '/user/quiet');
        $got = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($nobody, $quiet, &$got): Behavior {
            $ctx->watch($nobody, 'nobody is gone');
            $ctx->watch($quiet, 'quiet is gone');
            $ctx->unwatch($quiet);

            return Behavior::receive(static function (mixed $message) use (&$got): void {
                $got[] = $message;
            });
        }), 'watcher');
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });
        $quiet->tell(new PoisonPill());
        $this->runFor(0.1);

        self::assertSame(['nobody is gone'], $got, 'the custom message, and nothing for the unwatched actor');
    }

    public function testALinkWhoseWorkerDiesDuringAWriteConnectsToTheReplacementInsteadOfStayingCongested(): void
    {
        $w0 = $this->worker(0);
        $dead = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $remote = $w0->remoteRef(1, '/user/counter');
        $remote->tell('before');
        $this->runUntil(static fn(): bool => \count($dead->poll()->batches) === 1); // the link is up
        $dead->close(); // worker 1 is killed (kill -9); worker 0 has not read the close yet
        // A full frame is written at once, within tell(): the write finds the other end gone
        // (EPIPE), and the link is lost inside it.
        for ($i = 0; $i < PeerLink::MAX_BATCH; ++$i) {
            $remote->tell($i);
        }
        self::assertSame(PeerLink::MAX_BATCH + 1, $this->systems[0]->deadLetters->countFor(DeadLetterReason::WorkerLost), 'what was sent to the dead worker is delivery unknown');

        $replacement = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1); // the master started a new worker 1
        $remote->tell('after');
        self::assertSame(0, $this->systems[0]->deadLetters->countFor(DeadLetterReason::LinkCongested), 'the link was not left congested without a connection');
        $ask = $remote->ask('anyone?', 5.0);
        $this->runUntil(static function () use ($replacement): bool {
            foreach ($replacement->poll()->batches as $sequence => $_) {
                $replacement->ack($sequence);
            }

            return \count($replacement->batches) >= 1;
        });

        self::assertSame(0, $this->systems[0]->deadLetters->countFor(DeadLetterReason::LinkCongested));
        self::assertFalse($ask->isSettled(), 'the ask went to the new worker and waits for its answer');
    }

    public function testALinkWhoseWorkerDiesDuringTheHandshakeConnectsToTheReplacement(): void
    {
        $w0 = $this->worker(0);
        $dead = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $remote = $w0->remoteRef(1, '/user/counter');
        $remote->tell('before');
        $this->runUntil(static fn(): bool => $dead->poll()->authenticated); // its Challenge is sent
        $dead->close(); // and it is killed before it reads the Proof (worker 0 still has to read the Challenge)

        $replacement = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $this->runUntil(static function () use ($replacement): bool {
            foreach ($replacement->poll()->batches as $sequence => $_) {
                $replacement->ack($sequence);
            }

            return \count($replacement->batches) >= 1;
        });

        self::assertSame(0, $this->systems[0]->deadLetters->count(), 'the message waited for the replacement');
    }

    public function testLosingTheWorkerEndsTheWatch(): void
    {
        $w0 = $this->worker(0);
        $impostor = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $remote = $w0->remoteRef(1, '/user/far');
        /** @var list<mixed> $got */
        $got = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($remote, &$got): Behavior {
            $ctx->watch($remote);

            return Behavior::receive(static function (mixed $message) use (&$got): void {
                $got[] = $message;
            });
        }), 'watcher');
        $this->runUntil(static fn(): bool => $impostor->poll()->batches !== []); // the watch arrived
        $impostor->close(); // worker 1 dies
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });

        self::assertInstanceOf(Terminated::class, $got[0]);
        self::assertSame('/user/far', $got[0]->ref->path());
    }

    public function testASenderInAFiberWaitsWhileTheOtherWorkerDoesNotRead(): void
    {
        $w0 = $this->worker(0);
        $impostor = LinkPeer::server($this->dir . '/worker-1.sock', self::SECRET, 1);
        $remote = $w0->remoteRef(1, '/user/slow');
        $total = 100_000;
        $payload = str_repeat('x', 200); // 100,000 different 200-byte strings: far beyond the 4 MiB high-water mark
        $sent = 0;
        $done = $this->loop->async(static function () use ($remote, $payload, $total, &$sent): void {
            for ($i = 0; $i < $total; ++$i) {
                $remote->tell($i . $payload); // distinct, so that the codec cannot fold them into one
                ++$sent;
            }
        });
        $this->runUntil(static fn(): bool => $impostor->poll()->authenticated && $impostor->batches !== []);
        $impostor->reading = false; // the "worker" reads nothing more
        $this->runFor(0.3);

        self::assertFalse($done->isSettled(), 'the sender waits');
        self::assertLessThan($total, $sent);

        $impostor->reading = true;
        $this->runUntil(static function () use ($done, $impostor): bool {
            $impostor->poll();
            foreach (array_keys($impostor->batches) as $sequence) {
                $impostor->ack($sequence);
            }
            $impostor->batches = [];

            return $done->isSettled();
        });
        self::assertSame($total, $sent, 'once the other side reads, the sender goes on');
        self::assertGreaterThan(4 * 1024 * 1024, \strlen($impostor->received));
        self::assertSame(0, $this->systems[0]->deadLetters->count(), 'nothing was dropped on the way');
    }

    public function testAtAddressesAnActorAtAPathOnAnyWorker(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $local = $this->systems[0]->spawn(Behavior::ignore(), 'cache');

        self::assertSame($local, $w0->at(0, '/user/cache'));
        self::assertNull($w0->at(0, '/user/none'));
        self::assertInstanceOf(RemoteActorRef::class, $w0->at(1, '/user/cache'));
        $this->expectException(\OutOfRangeException::class);
        $w0->at(2, '/user/cache');
    }
}
