<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorFailed;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Backoff;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Exception\ActorStoppedException;
use Nexus\Persistence\Exception\CommandHandlerFailedException;
use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\PayloadEncodingException;
use Nexus\Persistence\Exception\RecoveryFailedException;
use Nexus\Persistence\Exception\StashFullException;
use Nexus\Persistence\Exception\StoreOverloadedException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Exception\TooManyEventsException;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\PersistenceSettings;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Signal\RecoveryFailed;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Runtime\Future;
use Nexus\TestKit\TestKit;
use Nexus\Tests\Unit\Persistence\Fixture\Added;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

final class EventSourcedBehaviorTest extends TestCase
{
    private TestKit $kit;
    private InMemoryStore $store;
    private Persistence $persistence;

    protected function setUp(): void
    {
        $this->kit = new TestKit();
        $this->store = new InMemoryStore($this->kit->loop);
        $this->persistence = new Persistence($this->kit->system, $this->store);
    }

    public function testEventsAreStoredBeforeTheReplyAndANewActorRecoversThem(): void
    {
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|a')->behavior(), 'a');

        self::assertSame(5, $this->ask($ledger, ['add', 5]));
        self::assertSame(8, $this->ask($ledger, ['add', 3]));
        $events = $this->store->readEvents('ledger|a', 1, 100, 100)->await();
        self::assertSame(['ledger.added', 'ledger.added'], array_map(static fn($e): string => $e->name, $events));
        self::assertSame('{"amount":5,"note":"n"}', $events[0]->data, 'stored as JSON under its logical name');

        $this->stop($ledger);
        $again = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|a')->behavior(), 'a2');
        self::assertSame(8, $this->ask($again, ['get']));
        self::assertSame(10, $this->ask($again, ['add', 2]));
        self::assertSame([1, 2, 3], array_map(static fn($e): int => $e->sequenceNr, $this->store->readEvents('ledger|a', 1, 100, 100)->await()));
    }

    public function testThePersistsOfOneLoopTurnGoToTheStoreInOneTransaction(): void
    {
        // A real loop: the test kit runs one actor per turn, a real loop all that are runnable.
        $system = new ActorSystem('group', new MemoryLogger());
        $store = new InMemoryStore($system->loop);
        $persistence = new Persistence($system, $store);
        $refs = [];
        for ($i = 0; $i < 20; ++$i) {
            $refs[] = $system->spawn(Ledger::behavior($persistence, "ledger|{$i}")->behavior());
        }
        $system->loop->runUntilIdle();
        $before = $store->transactions();

        $replies = array_map(static fn(ActorRef $ref): Future => $ref->ask(['add', 1]), $refs);
        self::assertSame(array_fill(0, 20, 1), Future::all($replies)->await(5.0));

        self::assertSame(1, $store->transactions() - $before, 'twenty persists, one transaction');
        self::assertSame(1, $persistence->groupCommit->transactions());
    }

    public function testCommandsThatArriveDuringRecoveryAreStashedAndHandledInOrder(): void
    {
        $this->seed('ledger|r', 4);
        $signals = [];
        $behavior = Ledger::behavior($this->persistence, 'ledger|r')->onSignal(static function (Signal $signal) use (&$signals): void {
            $signals[] = $signal instanceof RecoveryCompleted ? "recovered at {$signal->sequenceNr} with " . json_encode($signal->state) : $signal::class;
        });
        $ledger = $this->kit->spawn($behavior->behavior());

        $first = $ledger->ask(['add', 10]);
        $second = $ledger->ask(['add', 100]);
        self::assertSame([14, 114], Future::all([$first, $second])->await());
        self::assertContains('recovered at 4 with 4', $signals);
    }

    public function testACommandThatFindsTheStashFullDuringRecoveryFailsToItsAsker(): void
    {
        $persistence = new Persistence($this->kit->system, $this->store, settings: new PersistenceSettings(stashCapacity: 2));
        $ledger = $this->kit->spawn(Ledger::behavior($persistence, 'ledger|s')->behavior());

        $replies = [];
        for ($i = 1; $i <= 4; ++$i) {
            $replies[] = $ledger->ask(['add', $i]);
        }
        $answers = array_map(static fn(Future $f): mixed => $f->await(), $replies);

        self::assertSame([1, 3], \array_slice($answers, 0, 2));
        foreach (\array_slice($answers, 2) as $answer) {
            self::assertInstanceOf(CommandFailed::class, $answer);
            self::assertSame(StashFullException::class, $answer->kind);
            self::assertStringContainsString('recovering and its stash is full', $answer->reason);
        }
    }

    public function testEveryEffectRunsItsSideEffectsAndUnhandledCommandsBecomeDeadLetters(): void
    {
        $ran = [];
        $deadLetters = [];
        $this->kit->system->eventStream->subscribe($this->kit->spawn(Behavior::receive(static function (mixed $message) use (&$deadLetters): void {
            if ($message instanceof DeadLetter) {
                $deadLetters[] = [$message->message, $message->reason];
            }
        })), DeadLetter::class);
        Ledger::register($this->persistence);
        $ready = false;
        $behavior = $this->persistence->eventSourced('fx', [], static function (array $state, mixed $command, ActorContext $ctx) use (&$ran, &$ready): Effect {
            $note = static function (string $what) use (&$ran): \Closure {
                return static function (array $state) use (&$ran, $what): void {
                    $ran[] = $what . ':' . \count($state);
                };
            };

            return match ($command) {
                'persist' => Effect::persist(new Added(1))->thenRun($note('persist'))->thenReply(static fn(array $s): string => 'persisted ' . \count($s)),
                'none' => Effect::none()->thenRun($note('none'))->thenReply('nothing'),
                'unhandled' => Effect::unhandled()->thenRun($note('unhandled')),
                'later' => $ready ? Effect::reply('stashed one came back') : Effect::stash()->thenRun($note('stash')),
                'unstash' => Effect::none()->thenRun(static function (array $state) use ($note, &$ready): void {
                    $ready = true;
                    $note('unstash')($state);
                })->thenUnstashAll()->thenReply('unstashed'),
                'stop' => Effect::stop()->thenRun($note('stop'))->thenReply('stopping'),
                default => Effect::unhandled(),
            };
        }, static fn(array $state, object $event): array => [...$state, $event]);
        $actor = $this->kit->spawn($behavior->behavior());

        self::assertSame('persisted 1', $this->ask($actor, 'persist'));
        self::assertSame('nothing', $this->ask($actor, 'none'));
        $actor->tell('unhandled');
        $stashed = $actor->ask('later');
        self::assertSame('unstashed', $this->ask($actor, 'unstash'));
        self::assertSame('stashed one came back', $stashed->await(), 'the stashed command was handled again after thenUnstashAll');
        $probe = $this->kit->probe();
        $probe->watch($actor);
        self::assertSame('stopping', $this->ask($actor, 'stop'));
        $probe->expectTerminated($actor);

        self::assertSame(['persist:1', 'none:1', 'unhandled:1', 'stash:1', 'unstash:1', 'stop:1'], $ran);
        self::assertContains(['unhandled', DeadLetterReason::Unhandled], $deadLetters);
    }

    public function testAStoreFailureFailsTheCommandAndTheActorRecoversWithBackoff(): void
    {
        $signals = [];
        $behavior = Ledger::behavior($this->persistence, 'ledger|f')
            ->withBackoff(new Backoff(1.0, 8.0, 0.0))
            ->onSignal(static function (Signal $signal) use (&$signals): void {
                $signals[] = $signal::class;
            });
        $ledger = $this->kit->spawn($behavior->behavior());
        self::assertSame(5, $this->ask($ledger, ['add', 5]));

        $this->store->makeUnavailable('the disk went away');
        $failed = $this->ask($ledger, ['add', 1]);
        self::assertInstanceOf(CommandFailed::class, $failed);
        self::assertSame(StoreUnavailableException::class, $failed->kind);
        self::assertSame('the disk went away', $failed->reason);
        $meanwhile = $this->ask($ledger, ['get']);
        self::assertInstanceOf(CommandFailed::class, $meanwhile, 'while it backs off, commands fail at once');
        self::assertContains("Actor {$ledger->path()} failed in persisting to ledger|f: " . StoreUnavailableException::class . ': the disk went away', $this->kit->logger->messages('error'));

        $this->store->makeAvailable();
        $this->kit->advance(1.0);
        self::assertSame(5, $this->ask($ledger, ['get']), 'recovered from the store: the failed event was never stored');
        self::assertSame(7, $this->ask($ledger, ['add', 2]));
        self::assertSame([RecoveryCompleted::class, RecoveryCompleted::class], array_values(array_filter($signals, static fn(string $s): bool => str_contains($s, 'Recovery'))));
    }

    public function testARecoveryFailureIsSignalledFailsTheStashedCommandsAndIsRetried(): void
    {
        $this->seed('ledger|rf', 2);
        $this->store->makeUnavailable('no database');
        $errors = [];
        $behavior = Ledger::behavior($this->persistence, 'ledger|rf')
            ->withBackoff(new Backoff(2.0, 2.0, 0.0))
            ->onSignal(static function (Signal $signal) use (&$errors): void {
                if ($signal instanceof RecoveryFailed) {
                    $errors[] = $signal->error->getMessage();
                }
            });
        $ledger = $this->kit->spawn($behavior->behavior());
        $stashed = $ledger->ask(['get']);

        $answer = $stashed->await();
        self::assertInstanceOf(CommandFailed::class, $answer);
        self::assertSame(RecoveryFailedException::class, $answer->kind);
        self::assertStringContainsString('no database', $answer->reason);
        self::assertSame(['no database'], $errors);

        $this->store->makeAvailable();
        $this->kit->advance(2.0);
        self::assertSame(2, $this->ask($ledger, ['get']));
    }

    public function testWithoutBackoffAStoreFailureGoesToTheParentsSupervisor(): void
    {
        $failures = [];
        $this->kit->system->eventStream->subscribe($this->kit->spawn(Behavior::receive(static function (mixed $message) use (&$failures): void {
            if ($message instanceof ActorFailed) {
                $failures[] = $message->error::class;
            }
        })), ActorFailed::class);
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|e')->withBackoff(null)->behavior());
        self::assertSame(1, $this->ask($ledger, ['add', 1]));

        $this->store->makeUnavailable();
        self::assertInstanceOf(CommandFailed::class, $this->ask($ledger, ['add', 1]));
        $this->store->makeAvailable();
        $this->kit->runUntilIdle();

        self::assertContains(StoreUnavailableException::class, $failures, 'the actor failed, so its supervisor decided (default: restart)');
        self::assertSame(2, $this->ask($ledger, ['add', 1]), 'restarted and recovered');
    }

    public function testASecondActivationThatWritesLateStopsAndItsPendingCommandsFailWithTheReason(): void
    {
        $first = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|twin')->behavior());
        $second = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|twin')->behavior());
        $this->kit->runUntilIdle();
        $probe = $this->kit->probe();
        $probe->watch($second);

        self::assertSame(1, $this->ask($first, ['add', 1]));
        $late = $second->ask(['add', 10]);
        $queued = $second->ask(['add', 20]);

        $answer = $late->await();
        self::assertInstanceOf(CommandFailed::class, $answer);
        self::assertSame(ConcurrentWriteException::class, $answer->kind);
        $queuedAnswer = $queued->await();
        self::assertInstanceOf(CommandFailed::class, $queuedAnswer);
        self::assertSame(ConcurrentWriteException::class, $queuedAnswer->kind, 'the command stashed behind it fails with the same reason');
        $probe->expectTerminated($second);
        self::assertSame(3, $this->ask($first, ['add', 2]), 'the winner goes on');
        self::assertSame([1, 2], array_map(static fn($e): int => $e->sequenceNr, $this->store->readEvents('ledger|twin', 1, 100, 100)->await()));
    }

    public function testAnActivationPlacedUnderAClusterViewWritesWithItsRevisionAndFencesOlderOwners(): void
    {
        $old = $this->kit->spawn(Props::fromBehavior(Ledger::behavior($this->persistence, 'ledger|placed')->behavior())->withPlacementEpoch(500));
        self::assertSame(1, $this->ask($old, ['add', 1]));
        $new = $this->kit->spawn(Props::fromBehavior(Ledger::behavior($this->persistence, 'ledger|placed')->behavior())->withPlacementEpoch(700));
        self::assertSame(3, $this->ask($new, ['add', 2]));
        $again = $this->kit->spawn(Props::fromBehavior(Ledger::behavior($this->persistence, 'ledger|placed')->behavior())->withPlacementEpoch(700));
        self::assertSame(6, $this->ask($again, ['add', 3]), 'a new activation under the same view');

        $stale = $old->ask(['add', 100])->await();
        self::assertInstanceOf(CommandFailed::class, $stale, 'the owner placed under the older view can no longer write');
        self::assertSame(ConcurrentWriteException::class, $stale->kind);
        self::assertSame([500, 700, 701], array_map(static fn($e): int => $e->writerEpoch, $this->store->readEvents('ledger|placed', 1, 100, 100)->await()));
    }

    public function testALongJournalIsRecoveredInPages(): void
    {
        $this->seed('ledger|long', 25);
        $persistence = new Persistence($this->kit->system, $this->store, settings: new PersistenceSettings(recoveryPageSize: 10));
        $reads = $this->store->eventReads();

        $ledger = $this->kit->spawn(Ledger::behavior($persistence, 'ledger|long')->behavior());

        self::assertSame(25, $this->ask($ledger, ['get']));
        self::assertSame(3, $this->store->eventReads() - $reads, 'pages of 10, 10 and 5');
        self::assertSame(26, $this->ask($ledger, ['add', 1]));
    }

    public function testRefusedCommandsLeaveTheActorRunningWithItsState(): void
    {
        $persistence = new Persistence($this->kit->system, $this->store, settings: new PersistenceSettings(maxEventsPerPersist: 3));
        $ledger = $this->kit->spawn(Ledger::behavior($persistence, 'ledger|x')->behavior());
        self::assertSame(1, $this->ask($ledger, ['add', 1]));

        $tooMany = $this->ask($ledger, ['add-many', 1, 4]);
        self::assertInstanceOf(CommandFailed::class, $tooMany);
        self::assertSame(TooManyEventsException::class, $tooMany->kind);
        $unregistered = $this->ask($ledger, ['add-unregistered']);
        self::assertInstanceOf(CommandFailed::class, $unregistered);
        self::assertSame(PayloadEncodingException::class, $unregistered->kind);
        self::assertStringContainsString('Unregistered is not registered', $unregistered->reason);

        self::assertSame(4, $this->ask($ledger, ['add-many', 1, 3]));
        self::assertCount(4, $this->store->readEvents('ledger|x', 1, 100, 100)->await());
    }

    public function testAFullGroupCommitQueueRefusesTheWriteAtOnce(): void
    {
        $system = new ActorSystem('queue', new MemoryLogger());
        $persistence = new Persistence($system, new InMemoryStore($system->loop), settings: new PersistenceSettings(maxPendingWrites: 1));
        $a = $system->spawn(Ledger::behavior($persistence, 'ledger|qa')->behavior());
        $b = $system->spawn(Ledger::behavior($persistence, 'ledger|qb')->behavior());
        $system->loop->runUntilIdle();

        $replies = Future::all([$a->ask(['add', 1]), $b->ask(['add', 1])])->await(5.0);

        self::assertSame(1, $replies[0]);
        self::assertInstanceOf(CommandFailed::class, $replies[1]);
        self::assertSame(StoreOverloadedException::class, $replies[1]->kind);
        self::assertSame(1, $b->ask(['add', 1])->await(5.0), 'the refused write changed nothing');
    }

    public function testAHandlerThatThrowsFailsTheCommandAndTheActor(): void
    {
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|boom')->behavior());
        self::assertSame(3, $this->ask($ledger, ['add', 3]));

        $answer = $this->ask($ledger, ['boom']);
        self::assertInstanceOf(CommandFailed::class, $answer);
        self::assertSame(CommandHandlerFailedException::class, $answer->kind);
        self::assertStringContainsString('boom', $answer->reason);
        self::assertSame(4, $this->ask($ledger, ['add', 1]), 'restarted by its supervisor, recovered from the store');
    }

    public function testAnActorStoppedWhileItsWriteIsInFlightFailsThatCommand(): void
    {
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|stop')->behavior());
        $this->kit->runUntilIdle();

        $this->store->holdWrites(); // the database has not answered yet
        $pending = $ledger->ask(['add', 1]);
        $this->kit->runUntilIdle(); // the command is handled: its write is in flight
        self::assertFalse($pending->isSettled());
        $this->kit->system->stop($ledger);
        $answer = $pending->await();
        $this->store->releaseWrites();
        $this->kit->runUntilIdle();

        self::assertInstanceOf(CommandFailed::class, $answer);
        self::assertSame(ActorStoppedException::class, $answer->kind);
        self::assertStringContainsString('may or may not be stored', $answer->reason);
    }

    public function testAReplyThatThrowsAfterTheCommitFailsTheActorAndKeepsTheEvent(): void
    {
        $failures = [];
        $this->kit->system->eventStream->subscribe($this->kit->spawn(Behavior::receive(static function (mixed $message) use (&$failures): void {
            if ($message instanceof ActorFailed) {
                $failures[] = $message->error->getMessage();
            }
        })), ActorFailed::class);
        Ledger::register($this->persistence);
        $behavior = $this->persistence->eventSourced(
            'ledger|reply-throws',
            0,
            static fn(int $total, mixed $command): Effect => Effect::persist(new Added(1))->thenReply(static fn(int $total): int => $command === 'bad' ? throw new \DomainException('no reply') : $total),
            static fn(int $total, object $event): int => $total + 1,
        );
        $counter = $this->kit->spawn($behavior->behavior());
        self::assertSame(1, $this->ask($counter, 'good'));

        $lost = $counter->ask('bad', 0.2);
        $this->kit->runUntilIdle();
        self::assertSame(['no reply'], $failures, 'the reply closure failed the actor: its supervisor decided (default: restart)');
        self::assertSame(3, $this->ask($counter, 'good'), 'restarted and recovered: the event of the failed reply was stored');
        $this->expectException(\Throwable::class);
        $lost->await();
    }

    public function testACommitThatCompletesBeforeAStopIsAnsweredAndTheActorStopsAfter(): void
    {
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|stop-after')->behavior());
        $this->kit->runUntilIdle();

        $pending = $ledger->ask(['add', 1]);
        $this->kit->step(); // the command is handled and its write committed on this turn of the loop
        $this->kit->system->stop($ledger);

        self::assertSame(1, $pending->await(), 'the write was durable before the stop: its reply says so');
        $this->kit->runUntilIdle();
        self::assertNull($this->kit->system->lookup($ledger->path()));
    }

    public function testAPoisonPillWaitsForTheWriteInFlightAndTheCommandsBeforeIt(): void
    {
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|pill')->behavior());
        $this->kit->runUntilIdle();
        $probe = $this->kit->probe();
        $probe->watch($ledger);

        $first = $ledger->ask(['add', 1]);
        $this->kit->step(); // the first write is in flight
        $second = $ledger->ask(['add', 2]);
        $ledger->tell(new PoisonPill());
        $late = $ledger->ask(['add', 4]);

        self::assertSame(1, $first->await(), 'the write in flight is stored and answered');
        self::assertSame(3, $second->await(), 'a command queued before the pill is handled');
        $probe->expectTerminated($ledger);
        $this->expectException(\Nexus\Actor\Exception\RecipientTerminatedException::class);
        $late->await();
    }

    public function testAnEntityFactoryReturnsTheEventSourcedBehaviorAsItIs(): void
    {
        $persistence = $this->persistence;
        $ledgers = Workers::single($this->kit->system)->kind('ledger', static fn(string $id): Behavior => Ledger::behavior($persistence, "ledger|{$id}")->behavior());

        self::assertSame(2, $this->ask($ledgers->ref('e1'), ['add', 2]));
        self::assertSame(5, $this->ask($ledgers->ref('e1'), ['add', 3]));
        self::assertSame(7, $this->ask($ledgers->ref('e2'), ['add', 7]));
        self::assertCount(2, $this->store->readEvents('ledger|e1', 1, 10, 10)->await());
    }

    public function testACommandWithoutASenderThatFailsBecomesADeadLetterWithTheReason(): void
    {
        $deadLetters = [];
        $this->kit->system->eventStream->subscribe($this->kit->spawn(Behavior::receive(static function (mixed $message) use (&$deadLetters): void {
            if ($message instanceof DeadLetter) {
                $deadLetters[] = [$message->message, $message->reason];
            }
        })), DeadLetter::class);
        $ledger = $this->kit->spawn(Ledger::behavior($this->persistence, 'ledger|nobody')->props());
        self::assertSame(1, $this->ask($ledger, ['add', 1]));

        $this->store->makeUnavailable('gone');
        $ledger->tell(['add', 2], null);
        $this->kit->runUntilIdle();

        self::assertContains([['add', 2], DeadLetterReason::Refused], $deadLetters);
        self::assertNotEmpty(array_filter($this->kit->logger->messages('warning'), static fn(string $m): bool => str_contains($m, 'had no sender to tell: gone')));
    }

    public function testAnIdThatCannotNameAHistoryIsRefused(): void
    {
        foreach (['', str_repeat('x', 256), "a\0b", "\xff"] as $id) {
            try {
                $this->persistence->eventSourced($id, 0, static fn(): Effect => Effect::none(), static fn(int $s): int => $s);
                self::fail('The id ' . bin2hex($id) . ' must be refused.');
            } catch (\Nexus\Persistence\Exception\InvalidPersistenceIdException $e) {
                self::assertStringContainsString('1 to 255 bytes of UTF-8 without NUL', $e->getMessage());
            }
        }
    }

    public function testCommandFailedUnwrapsToItsException(): void
    {
        self::assertSame(3, CommandFailed::unwrap(3));
        $this->expectException(StoreUnavailableException::class);
        $this->expectExceptionMessage('ledger|a: down');
        CommandFailed::unwrap(new CommandFailed(StoreUnavailableException::class, 'down', 'ledger|a'));
    }

    private function ask(ActorRef $ref, mixed $command): mixed
    {
        return $ref->ask($command, 3.0)->await();
    }

    private function stop(ActorRef $ref): void
    {
        $probe = $this->kit->probe();
        $probe->watch($ref);
        $this->kit->system->stop($ref);
        $probe->expectTerminated($ref);
    }

    private function seed(string $id, int $events): void
    {
        Ledger::register($this->persistence);
        $payloads = [];
        for ($i = 0; $i < $events; ++$i) {
            $payloads[] = $this->persistence->types->encodeEvent(new Added(1));
        }
        self::assertSame([null], $this->store->writeEvents([new \Nexus\Persistence\Store\AtomicWrite($id, 1, 1, $payloads)])->await());
    }
}
