<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Backoff;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\DurableStateBehavior;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Exception\TooManyEventsException;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Runtime\Future;
use Nexus\TestKit\TestKit;
use Nexus\Tests\Unit\Persistence\Fixture\Tally;
use PHPUnit\Framework\TestCase;

final class DurableStateBehaviorTest extends TestCase
{
    private TestKit $kit;
    private InMemoryStore $store;
    private Persistence $persistence;

    protected function setUp(): void
    {
        $this->kit = new TestKit();
        $this->store = new InMemoryStore($this->kit->loop);
        $this->persistence = new Persistence($this->kit->system, $this->store);
        $this->persistence->types->register(Tally::class, 'tally.state');
    }

    public function testTheStateItselfIsStoredWithARevisionAndANewActorReadsItBack(): void
    {
        $tally = $this->kit->spawn(self::tally($this->persistence, 'tally|a')->behavior());

        self::assertSame(5, $this->ask($tally, ['add', 5]));
        self::assertSame(7, $this->ask($tally, ['add', 2]));
        $record = $this->store->loadState('tally|a')->await();
        self::assertNotNull($record);
        self::assertSame([2, 'tally.state', '{"total":7,"amounts":[5,2]}'], [$record->revision, $record->state->name, $record->state->data]);

        $revisions = [];
        $again = $this->kit->spawn(self::tally($this->persistence, 'tally|a')->onSignal(static function (Signal $signal) use (&$revisions): void {
            if ($signal instanceof RecoveryCompleted) {
                $revisions[] = $signal->sequenceNr;
            }
        })->behavior());
        self::assertSame(7, $this->ask($again, ['get']));
        self::assertSame([2], $revisions);
        self::assertSame(8, $this->ask($again, ['add', 1]));
        self::assertSame(3, $this->store->loadState('tally|a')->await()?->revision);
    }

    public function testTheOtherEffectsStoreNothingAndRunTheirSideEffects(): void
    {
        $unhandled = [];
        $this->kit->system->eventStream->subscribe($this->kit->spawn(\Nexus\Actor\Behavior::receive(static function (mixed $message) use (&$unhandled): void {
            if ($message instanceof DeadLetter && $message->reason === DeadLetterReason::Unhandled) {
                $unhandled[] = $message->message;
            }
        })), DeadLetter::class);
        $tally = $this->kit->spawn(self::tally($this->persistence, 'tally|b')->behavior());

        self::assertSame(0, $this->ask($tally, ['get']));
        $tally->tell(['what']);
        $two = $this->ask($tally, ['two-states']);
        self::assertInstanceOf(CommandFailed::class, $two);
        self::assertSame(TooManyEventsException::class, $two->kind);
        $this->kit->runUntilIdle();

        self::assertNull($this->store->loadState('tally|b')->await(), 'nothing was stored');
        self::assertSame([['what']], $unhandled);
    }

    public function testTheWritesOfOneLoopTurnGoInOneTransaction(): void
    {
        $system = new ActorSystem('durable', new MemoryLogger());
        $store = new InMemoryStore($system->loop);
        $persistence = new Persistence($system, $store);
        $persistence->types->register(Tally::class, 'tally.state');
        $refs = [];
        for ($i = 0; $i < 10; ++$i) {
            $refs[] = $system->spawn(self::tally($persistence, "tally|{$i}")->behavior());
        }
        $system->loop->runUntilIdle();
        $before = $store->transactions();

        self::assertSame(array_fill(0, 10, 3), Future::all(array_map(static fn(ActorRef $r): Future => $r->ask(['add', 3]), $refs))->await(5.0));
        self::assertSame(1, $store->transactions() - $before);
    }

    public function testAnotherWriterThatChangedTheStateFirstStopsThisOne(): void
    {
        $first = $this->kit->spawn(self::tally($this->persistence, 'tally|twin')->behavior());
        $second = $this->kit->spawn(self::tally($this->persistence, 'tally|twin')->behavior());
        $this->kit->runUntilIdle();
        $probe = $this->kit->probe();
        $probe->watch($second);

        self::assertSame(1, $this->ask($first, ['add', 1]));
        $late = $this->ask($second, ['add', 10]);

        self::assertInstanceOf(CommandFailed::class, $late);
        self::assertSame(ConcurrentWriteException::class, $late->kind);
        $probe->expectTerminated($second);
        self::assertSame(1, $this->store->loadState('tally|twin')->await()?->revision);
    }

    public function testAStoreFailureFailsTheCommandAndTheActorRecoversWithBackoff(): void
    {
        $tally = $this->kit->spawn(self::tally($this->persistence, 'tally|f')->withBackoff(new Backoff(1.0, 1.0, 0.0))->behavior());
        self::assertSame(4, $this->ask($tally, ['add', 4]));

        $this->store->makeUnavailable('gone');
        $failed = $this->ask($tally, ['add', 1]);
        self::assertInstanceOf(CommandFailed::class, $failed);
        self::assertSame(StoreUnavailableException::class, $failed->kind);
        $this->store->makeAvailable();
        $this->kit->advance(1.0);

        self::assertSame(4, $this->ask($tally, ['get']));
        self::assertSame(6, $this->ask($tally, ['add', 2]));
    }

    private static function tally(Persistence $persistence, string $id): DurableStateBehavior
    {
        return $persistence->durableState($id, new Tally(), static function (Tally $tally, mixed $command, ActorContext $ctx): Effect {
            \assert(\is_array($command));

            return match ($command[0]) {
                'add' => Effect::persist($tally->add(\is_int($command[1]) ? $command[1] : 0))->thenReply(static fn(Tally $t): int => $t->total),
                'get' => Effect::reply($tally->total),
                'two-states' => Effect::persist($tally, $tally),
                default => Effect::unhandled(),
            };
        });
    }

    private function ask(ActorRef $ref, mixed $command): mixed
    {
        return $ref->ask($command, 3.0)->await();
    }
}
