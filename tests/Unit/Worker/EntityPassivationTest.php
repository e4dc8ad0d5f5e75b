<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Actor\Actor;
use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\Props;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\TestKit\TestKit;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;
use Nexus\Worker\EntityKind;
use Nexus\Worker\EntitySettings;
use Nexus\Worker\Exception\EntityLimitException;
use Nexus\Worker\Exception\PoolConfigurationException;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * Entities (Workers::kind()) passivate when idle and to keep at most maxActive alive, and no
 * message is lost to a passivation: on the test kit's virtual clock, through the public API.
 */
final class EntityPassivationTest extends TestCase
{
    private TestKit $kit;
    private InMemoryStore $store;
    private Persistence $persistence;
    /** @var list<string> what the ledgers' signal handlers heard, as "id: signal" */
    private array $signals = [];

    protected function setUp(): void
    {
        $this->kit = new TestKit();
        $this->store = new InMemoryStore($this->kit->loop);
        $this->persistence = new Persistence($this->kit->system, $this->store);
    }

    public function testAnIdleEntityPassivatesAfterTheIdleTimeoutAndRecoversOnItsNextMessage(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: 10.0));
        self::assertSame(2, $this->ask($ledgers->ref('a'), ['add', 2]));
        self::assertSame(1, $ledgers->activeCount());

        $this->kit->advance(9.0);
        self::assertSame(3, $this->ask($ledgers->ref('a'), ['add', 1]), 'used again: its idle time starts over');
        $this->kit->advance(9.9);
        self::assertSame(1, $ledgers->activeCount(), 'not idle for 10 s yet');
        self::assertNotContains('a: PostStop', $this->signals);

        $this->kit->advance(0.2);
        self::assertSame(0, $ledgers->activeCount(), 'idle for 10 s: passivated');
        self::assertContains('a: PostStop', $this->signals);

        self::assertSame(7, $this->ask($ledgers->ref('a'), ['add', 4]), 'the next message starts it again, from its events');
        self::assertContains('a: RecoveryCompleted 3 at 2', $this->signals);
        self::assertSame(1, $ledgers->activeCount());
    }

    public function testWithoutAnIdleTimeoutAnEntityStaysAlive(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: null));
        self::assertSame(2, $this->ask($ledgers->ref('a'), ['add', 2]));
        $this->kit->advance(86_400.0);

        self::assertSame(1, $ledgers->activeCount());
        self::assertNotContains('a: PostStop', $this->signals);
    }

    public function testMessagesThatArriveWhilePassivationWaitsForAWriteGoToTheNextIncarnationInOrder(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: 10.0));
        self::assertSame(1, $this->ask($ledgers->ref('a'), ['add', 1]));
        $probe = $this->kit->probe();

        // A command arrives just as the idle timeout fires: the entity handles it first (it came
        // before the pill), and holds the pill while that write is in flight.
        $ref = $ledgers->ref('a');
        $ref->tell(['add', 10], $probe->ref);
        $this->kit->clock->advanceTo($this->kit->now() + 10.0);
        $this->kit->step(); // the timer puts the pill behind the command; the entity takes both
        foreach ([100, 1000] as $amount) {
            $ref->tell(['add', $amount], $probe->ref); // behind the held pill
        }
        $this->kit->runUntilIdle();

        self::assertSame([11, 111, 1111], $probe->receiveMessages(3), 'every command answered once, in order');
        self::assertSame(['a: PostStop', 'a: RecoveryCompleted 11 at 2'], \array_slice(array_values(array_filter($this->signals, static fn(string $s): bool => !str_contains($s, ' 0 at 0'))), 0, 2), 'the write finished, the entity stopped, the next incarnation recovered it and took the rest');
        self::assertSame(['{"amount":1,"note":"n"}', '{"amount":10,"note":"n"}', '{"amount":100,"note":"n"}', '{"amount":1000,"note":"n"}'], array_map(static fn($e): string => $e->data, $this->store->readEvents('ledger|a', 1, 100, 100)->await()));
    }

    public function testAtTheLimitTheLeastRecentlyUsedIdleEntityIsPassivated(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: null, maxActive: 3));
        foreach (['a', 'b', 'c'] as $i => $id) {
            self::assertSame($i + 1, $this->ask($ledgers->ref($id), ['add', $i + 1]));
            $this->kit->advance(1.0);
        }
        self::assertSame(11, $this->ask($ledgers->ref('a'), ['add', 10]), 'a is used again: b is now the least recently used');
        $this->kit->advance(1.0);

        self::assertSame(4, $this->ask($ledgers->ref('d'), ['add', 4]));
        self::assertContains('b: PostStop', $this->signals);
        self::assertNotContains('a: PostStop', $this->signals);
        self::assertNotContains('c: PostStop', $this->signals);
        self::assertSame(3, $ledgers->activeCount());

        // b comes back (recovered), and c, now the least recently used, makes room.
        self::assertSame(22, $this->ask($ledgers->ref('b'), ['add', 20]));
        self::assertContains('c: PostStop', $this->signals);
        self::assertSame(3, $ledgers->activeCount());
    }

    public function testMessagesSentToAnEntityBeingPassivatedForRoomReachItsNextIncarnationInOrder(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: null, maxActive: 2));
        self::assertSame(1, $this->ask($ledgers->ref('a'), ['add', 1]));
        $this->kit->advance(1.0);
        self::assertSame(2, $this->ask($ledgers->ref('b'), ['add', 2]));
        $this->kit->advance(1.0);
        $probe = $this->kit->probe();

        // Nothing runs in between: c's start sends a its pill, then three commands queue behind it.
        $a = $ledgers->ref('a');
        $ledgers->ref('c')->tell(['add', 3], $probe->ref);
        foreach ([10, 100, 1000] as $amount) {
            $a->tell(['add', $amount], $probe->ref);
        }
        $this->kit->runUntilIdle();

        self::assertEqualsCanonicalizing([3, 11, 111, 1111], $probe->receiveMessages(4));
        self::assertContains('a: PostStop', $this->signals);
        self::assertContains('a: RecoveryCompleted 1 at 1', $this->signals, 'the next incarnation recovered what the first had stored');
        self::assertSame(1111, $this->ask($ledgers->ref('a'), ['get']));
    }

    public function testWhenNoEntityIsIdleAStartAtTheLimitIsRefusedWithATypedFailure(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: null, maxActive: 2));
        $a = $ledgers->ref('a');
        $b = $ledgers->ref('b');
        // Both have a command waiting (nothing has run yet): neither is idle.
        $a->tell(['add', 1]);
        $b->tell(['add', 2]);
        try {
            $ledgers->ref('c');
            self::fail('a third entity started');
        } catch (EntityLimitException $e) {
            self::assertStringContainsString('ledger entity c cannot start: 2 are alive on worker 0', $e->getMessage());
            self::assertStringContainsString('Retry later, or raise maxActive', $e->getMessage());
        }
        self::assertSame(2, $ledgers->activeCount(), 'nothing was passivated');

        // Once they have caught up, one of them makes room.
        $this->kit->runUntilIdle();
        self::assertSame(3, $this->ask($ledgers->ref('c'), ['add', 3]));
        self::assertSame(2, $ledgers->activeCount());
        self::assertSame([1, 2], [$this->ask($a, ['get']), $this->ask($b, ['get'])], 'the commands waiting were handled, not dropped');
    }

    public function testAnEntityWithAWriteInFlightIsNotTakenToMakeRoom(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: null, maxActive: 1));
        self::assertSame(1, $this->ask($ledgers->ref('a'), ['add', 1]));
        $probe = $this->kit->probe();
        $ledgers->ref('a')->tell(['add', 1], $probe->ref);
        // Let a take the command: its write is now queued for the group commit, not committed.
        $this->kit->step();

        $this->expectException(EntityLimitException::class);
        $ledgers->ref('b');
    }

    public function testAPlainBehaviorAndAnActorClassPassivateAndAnOldReferenceStillReachesTheEntity(): void
    {
        $workers = Workers::single($this->kit->system);
        $started = 0;
        $plain = $workers->kind('plain', static function (string $id) use (&$started): Behavior {
            ++$started;

            return Behavior::withState(0, static function (int $n, string $message, ActorContext $ctx): int {
                $ctx->reply("{$message} " . ($n + 1));

                return $n + 1;
            });
        }, new EntitySettings(idleTimeout: 5.0));
        $classy = $workers->kind('classy', static fn(string $id): Props => Props::fromFactory(static fn(): Actor => new EchoActor()), new EntitySettings(idleTimeout: 5.0));

        $old = $plain->ref('p');
        self::assertSame('x 1', $old->ask('x')->await());
        self::assertSame('hello', $classy->ref('e')->ask('hello')->await());
        self::assertSame(1, EchoActor::$preStarts);

        $this->kit->advance(6.0);
        self::assertSame(0, $plain->activeCount());
        self::assertSame(0, $classy->activeCount());
        self::assertSame(1, EchoActor::$postStops, 'the actor heard it stop');

        self::assertSame('y 1', $old->ask('y')->await(), 'a reference kept from the first incarnation reaches the next one (its state starts afresh)');
        self::assertSame(2, $started);
        self::assertSame('again', $classy->ref('e')->ask('again')->await());
        self::assertSame(2, EchoActor::$preStarts);
    }

    public function testMessagesKeptForAStoppedEntityAreBoundedAndTheRestFailAtOnce(): void
    {
        $ledgers = $this->ledgers(new EntitySettings(idleTimeout: 5.0, maxBuffered: 2));
        $a = $ledgers->ref('a');
        self::assertSame(1, $this->ask($a, ['add', 1]));
        $deadLetters = $this->deadLetters();

        // Run until the entity has stopped (its PostStop), before its region has seen it.
        $this->kit->clock->advanceTo($this->kit->now() + 5.0);
        for ($steps = 0; !\in_array('a: PostStop', $this->signals, true); ++$steps) {
            self::assertLessThan(100, $steps, 'the idle entity stops within a few turns');
            $this->kit->step();
        }
        $asks = [];
        foreach ([10, 100, 1000] as $amount) {
            $asks[] = $a->ask(['add', $amount]);
        }
        $this->kit->runUntilIdle();

        self::assertSame(11, $asks[0]->await());
        self::assertSame(111, $asks[1]->await());
        try {
            $asks[2]->await();
            self::fail('the third message was kept beyond the bound');
        } catch (RecipientTerminatedException) {
        }
        self::assertSame([[['add', 1000], DeadLetterReason::RecipientTerminated]], $deadLetters->messages);
        self::assertNotEmpty(array_filter($this->kit->logger->messages('warning'), static fn(string $m): bool => str_contains($m, 'already has 2 messages waiting')));
    }

    public function testAnEntityThatStopsAsSoonAsItStartsDoesNotLoop(): void
    {
        $workers = Workers::single($this->kit->system);
        $starts = 0;
        $quitter = $workers->kind('quitter', static function (string $id) use (&$starts): Behavior {
            ++$starts;

            return Behavior::receive(static fn(mixed $message): Behavior => Behavior::stopped());
        });
        $deadLetters = $this->deadLetters();
        $ref = $quitter->ref('q');
        for ($i = 0; $i < 10; ++$i) {
            $ref->tell($i);
        }
        $this->kit->runUntilIdle();

        self::assertLessThanOrEqual(5, $starts, 'started again a few times for the messages waiting, then given up');
        self::assertNotEmpty($deadLetters->messages, 'what it never took is a dead letter');
        self::assertNotEmpty(array_filter($this->kit->logger->messages('warning'), static fn(string $m): bool => str_contains($m, 'stopped each time')));
    }

    public function testSettingsThatCannotWorkAreRefused(): void
    {
        foreach ([[0.0, 1, 1], [-1.0, 1, 1], [1.0, 0, 1], [1.0, 1, 0]] as [$idle, $max, $buffered]) {
            try {
                new EntitySettings($idle, $max, $buffered);
                self::fail("accepted {$idle}, {$max}, {$buffered}");
            } catch (PoolConfigurationException $e) {
                self::assertMatchesRegularExpression('/must be (above 0 seconds|at least 1)/', $e->getMessage());
            }
        }
    }

    private function ledgers(EntitySettings $settings): EntityKind
    {
        $persistence = $this->persistence;
        $signals = &$this->signals;

        return Workers::single($this->kit->system)->kind('ledger', static function (string $id) use ($persistence, &$signals): Behavior {
            return Ledger::behavior($persistence, "ledger|{$id}")->onSignal(static function (Signal $signal, ActorContext $ctx) use (&$signals, $id): void {
                if ($signal instanceof RecoveryCompleted) {
                    \assert(\is_int($signal->state));
                    $signals[] = "{$id}: RecoveryCompleted {$signal->state} at {$signal->sequenceNr}";
                } elseif ($signal instanceof PostStop) {
                    $signals[] = "{$id}: PostStop";
                }
            })->behavior();
        }, $settings);
    }

    private function ask(ActorRef $ref, mixed $command): mixed
    {
        return $ref->ask($command, 3.0)->await();
    }

    private function deadLetters(): DeadLetterLog
    {
        $log = new DeadLetterLog();
        $this->kit->system->eventStream->subscribe($this->kit->spawn(Behavior::receive(static function (mixed $message) use ($log): void {
            if ($message instanceof DeadLetter) {
                $log->messages[] = [$message->message, $message->reason];
            }
        })), DeadLetter::class);

        return $log;
    }
}
