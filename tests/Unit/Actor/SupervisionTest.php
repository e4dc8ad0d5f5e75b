<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorFailed;
use Nexus\Actor\Event\ActorRestarted;
use Nexus\Actor\Exception\ActorInitializationException;
use Nexus\Actor\Exception\ActorKilledException;
use Nexus\Actor\Exception\ActorStoppingException;
use Nexus\Actor\Exception\RestartLimitExceededException;
use Nexus\Actor\Props;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Backoff;
use Nexus\Actor\Supervision\Directive;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\TestCase;

final class SupervisionTest extends TestCase
{
    public function testRestartGivesAFreshStateAndKeepsTheQueuedMessages(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $counter = $kit->spawn($this->counter());
        $counter->tell('inc');
        $counter->tell('inc');
        $counter->tell('fail');
        $counter->tell('inc');
        $counter->tell('get', $probe->ref);

        $probe->expectMessage(1);
        self::assertCount(1, $kit->logger->messages('error'));
        self::assertStringContainsString('/user/', $kit->logger->messages('error')[0]);
    }

    public function testResumeKeepsTheStateAndDropsOnlyTheFailedMessage(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $counter = $this->childOf($kit, $probe, $this->counter(), SupervisorStrategy::oneForOne(static fn(): Directive => Directive::Resume));
        $counter->tell('inc');
        $counter->tell('inc');
        $counter->tell('fail');
        $counter->tell('inc');
        $counter->tell('get', $probe->ref);

        $probe->expectMessage(3);
    }

    public function testStopDirectiveStopsTheChild(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $counter = $this->childOf($kit, $probe, $this->counter(), SupervisorStrategy::oneForOne(static fn(): Directive => Directive::Stop));
        $probe->watch($counter);
        $counter->tell('fail');

        $probe->expectTerminated($counter);
    }

    public function testDeciderChoosesByException(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $strategy = SupervisorStrategy::oneForOne(static fn(\Throwable $e): Directive => $e instanceof \DomainException ? Directive::Resume : Directive::Restart);
        $counter = $this->childOf($kit, $probe, $this->counter(), $strategy);
        $counter->tell('inc');
        $counter->tell('domain');  // resumed: count stays 1
        $counter->tell('get', $probe->ref);
        $counter->tell('fail');    // restarted: count back to 0
        $counter->tell('get', $probe->ref);

        $probe->expectMessage(1);
        $probe->expectMessage(0);
    }

    public function testEscalateFailsTheSupervisorWhichItsOwnSupervisorRestarts(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, ActorRestarted::class);
        $middle = $kit->spawn(Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $probe->ref->tell($ctx->spawn(Behavior::receive(static function (): void {
                throw new \RuntimeException('deep failure');
            }), 'leaf'));

            return Behavior::ignore();
        }))->withSupervisor(SupervisorStrategy::oneForOne(static fn(): Directive => Directive::Escalate)), 'middle');
        $leaf = $probe->expectMessageClass(ActorRef::class);
        $leaf->tell('go');

        // The top-level 'middle' is restarted by the user guardian's default strategy: its setup
        // runs again and starts a new leaf.
        // The new incarnation's setup starts a new leaf before the restart is announced.
        $newLeaf = $probe->expectMessageClass(ActorRef::class);
        $restarted = $probe->expectMessageClass(ActorRestarted::class);
        self::assertSame($middle, $restarted->actor);
        self::assertSame('deep failure', $restarted->reason->getMessage());
        self::assertNotSame($leaf, $newLeaf);
        self::assertSame('/user/middle/leaf', $newLeaf->path());
    }

    public function testAllForOneRestartsEverySibling(): void
    {
        self::assertSame([0, 0, 0], $this->countsAfterTheMiddleChildFails(SupervisorStrategy::allForOne()));
    }

    public function testRestForOneRestartsTheFailedChildAndThoseStartedAfterIt(): void
    {
        self::assertSame([1, 0, 0], $this->countsAfterTheMiddleChildFails(SupervisorStrategy::restForOne()));
    }

    public function testOneForOneLeavesSiblingsAlone(): void
    {
        self::assertSame([1, 0, 1], $this->countsAfterTheMiddleChildFails(SupervisorStrategy::oneForOne()));
    }

    public function testRestartLimitStopsTheChildAndEscalates(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, ActorFailed::class);
        $counter = $this->childOf($kit, $probe, $this->counter(), SupervisorStrategy::oneForOne(null, 2, 10.0));
        $probe->watch($counter);
        $counter->tell('fail');
        $counter->tell('fail');
        $kit->runUntilIdle();
        self::assertNotNull($kit->system->lookup($counter->path()), 'two restarts are within the limit');
        $counter->tell('fail');

        $escalated = $probe->fishForMessage(static fn(mixed $m): bool => $m instanceof ActorFailed && $m->error instanceof RestartLimitExceededException);
        \assert($escalated instanceof ActorFailed);
        $probe->fishForMessage(static fn(mixed $m): bool => $m instanceof \Nexus\Actor\Message\Terminated && $m->ref === $counter);
        self::assertStringContainsString('failed 3 times within 10.0 s', $escalated->error->getMessage());
        self::assertStringContainsString('more than the 2 restarts', $escalated->error->getMessage());
    }

    public function testRestartsOutsideTheWindowDoNotCount(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $counter = $this->childOf($kit, $probe, $this->counter(), SupervisorStrategy::oneForOne(null, 1, 5.0));
        $counter->tell('fail');
        $kit->advance(6.0);
        $counter->tell('fail');
        $kit->advance(6.0);
        $counter->tell('fail');
        $counter->tell('get', $probe->ref);

        $probe->expectMessage(0);
    }

    public function testTheDefaultDeciderStopsWhatCannotStartOrWasKilledAndRestartsTheRest(): void
    {
        $strategy = SupervisorStrategy::default();
        foreach ([
            [new ActorInitializationException('no start'), Directive::Stop],
            [new ActorKilledException('killed'), Directive::Stop],
            [new ActorStoppingException('another actor exception'), Directive::Restart],
            [new \RuntimeException('a failure'), Directive::Restart],
            [new \Error('an error'), Directive::Restart],
        ] as [$failure, $directive]) {
            self::assertSame($directive, $strategy->decide($failure), $failure::class);
            self::assertSame($directive, SupervisorStrategy::defaultDecider($failure), $failure::class);
        }
    }

    public function testOnlyTheRestartsThatLeftTheWindowStopCounting(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, ActorFailed::class);
        $counter = $this->childOf($kit, $probe, $this->counter(), SupervisorStrategy::oneForOne(null, 2, 5.0));
        $probe->watch($counter);
        $counter->tell('fail'); // t = 0
        $kit->advance(3.0);
        $counter->tell('fail'); // t = 3
        $kit->advance(3.0);
        $counter->tell('fail'); // t = 6: the one of t = 0 left the window, two count
        $kit->runUntilIdle();
        self::assertNotNull($kit->system->lookup($counter->path()), 'the restarts of t = 3 and t = 6 are within the limit');
        $kit->advance(1.0);
        $counter->tell('fail'); // t = 7: three within 5 s

        $escalated = $probe->fishForMessage(static fn(mixed $m): bool => $m instanceof ActorFailed && $m->error instanceof RestartLimitExceededException);
        \assert($escalated instanceof ActorFailed);
        self::assertStringContainsString('failed 3 times within 5.0 s', $escalated->error->getMessage());
        $probe->fishForMessage(static fn(mixed $m): bool => $m instanceof \Nexus\Actor\Message\Terminated && $m->ref === $counter);
    }

    public function testBackoffDelaysEachRestartExponentially(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $strategy = SupervisorStrategy::oneForOne()->withBackoff(1.0, 8.0, 0.0);
        $counter = $this->childOf($kit, $probe, $this->counter(), $strategy);
        $start = $kit->now();

        $counter->tell('fail');
        $counter->tell('get', $probe->ref);
        $kit->advance(0.99);
        self::assertSame(0, $probe->pending(), 'suspended during the first backoff');
        $kit->advance(0.02);
        $probe->expectMessage(0, 0.0);

        $counter->tell('fail');
        $counter->tell('get', $probe->ref);
        $kit->advance(1.98);
        self::assertSame(0, $probe->pending(), 'the second backoff is twice as long');
        $kit->advance(0.03);
        $probe->expectMessage(0, 0.0);
        self::assertEqualsWithDelta(3.02, $kit->now() - $start, 0.001);
    }

    public function testBackoffGrowsToItsMaximumWithJitterInRange(): void
    {
        $backoff = new Backoff(0.5, 4.0, 0.25);

        self::assertSame(0.5, $backoff->delay(1, 0.0));
        self::assertSame(1.0, $backoff->delay(2, 0.0));
        self::assertSame(4.0, $backoff->delay(10, 0.0));
        self::assertSame(5.0, $backoff->delay(10, 1.0));
        for ($i = 0; $i < 50; ++$i) {
            $delay = $backoff->delay(2);
            self::assertGreaterThanOrEqual(1.0, $delay);
            self::assertLessThanOrEqual(1.25, $delay);
        }
    }

    public function testChildrenAreStoppedLeafFirstBeforeARestart(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $reportStop = static fn(string $who): \Closure => static function (Signal $signal) use ($probe, $who): void {
            if ($signal instanceof PostStop) {
                $probe->ref->tell("stopped {$who}");
            }
        };
        $parent = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe, $reportStop): Behavior {
            $ctx->spawn(Behavior::setup(static function (ActorContext $ctx) use ($reportStop): Behavior {
                $ctx->spawn(Behavior::ignore()->onSignal($reportStop('grandchild')), 'grandchild');

                return Behavior::ignore()->onSignal($reportStop('child'));
            }), 'child');
            $probe->ref->tell('parent started');

            return Behavior::receive(static function (): void {
                throw new \RuntimeException('parent fails');
            });
        }), 'parent');
        $probe->expectMessage('parent started');
        $parent->tell('fail');

        self::assertSame(['stopped grandchild', 'stopped child', 'parent started'], $probe->receiveMessages(3));
    }

    public function testAFailingStartIsStoppedByTheDefaultStrategy(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, ActorFailed::class);
        $ref = $kit->spawn(Behavior::setup(static function (): Behavior {
            throw new \LogicException('cannot open resource');
        }));
        $probe->watch($ref);

        $failure = $probe->expectMessageClass(ActorFailed::class);
        self::assertInstanceOf(ActorInitializationException::class, $failure->error);
        self::assertStringContainsString('cannot open resource', $failure->error->getMessage());
        $probe->expectTerminated($ref);
    }

    public function testAnExceptionInAHandlerNeverEndsTheProcess(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'type error') {
                $ctx->reply(strlen([])); // @phpstan-ignore argument.type
            }
            $ctx->reply('ok');
        }));
        $ref->tell('type error');
        $ref->tell('hello', $probe->ref);

        $probe->expectMessage('ok');
        self::assertStringContainsString('TypeError', $kit->logger->messages('error')[0]);
    }

    /**
     * Three counters a, b, c under one supervisor each count to 1, then b fails: what do they count
     * afterwards?
     *
     * @return list<mixed>
     */
    private function countsAfterTheMiddleChildFails(SupervisorStrategy $strategy): array
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        [$a, $b, $c] = $this->family($kit, $probe, $strategy);
        foreach ([$a, $b, $c] as $child) {
            $child->tell('inc');
        }
        $kit->runUntilIdle();
        $b->tell('fail');
        $kit->runUntilIdle();
        foreach ([$a, $b, $c] as $child) {
            $child->tell('get', $probe->ref);
            $kit->runUntilIdle();
        }

        return $probe->receiveMessages(3);
    }

    private function counter(): Props
    {
        return Props::fromBehavior(Behavior::withState(0, static function (int $count, mixed $message, ActorContext $ctx): int {
            return match ($message) {
                'inc' => $count + 1,
                'get' => (static function () use ($ctx, $count): int {
                    $ctx->reply($count);

                    return $count;
                })(),
                'fail' => throw new \RuntimeException('asked to fail'),
                'domain' => throw new \DomainException('domain failure'),
                default => $count,
            };
        }));
    }

    private function childOf(TestKit $kit, TestProbe $probe, Props $child, SupervisorStrategy $strategy): ActorRef
    {
        $kit->spawn(Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($probe, $child): Behavior {
            $probe->ref->tell($ctx->spawn($child, 'child'));

            return Behavior::ignore();
        }))->withSupervisor($strategy));

        return $probe->expectMessageClass(ActorRef::class);
    }

    /**
     * @return list<ActorRef>
     */
    private function family(TestKit $kit, TestProbe $probe, SupervisorStrategy $strategy): array
    {
        $counter = $this->counter();
        $kit->spawn(Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($probe, $counter): Behavior {
            $probe->ref->tell([$ctx->spawn($counter, 'a'), $ctx->spawn($counter, 'b'), $ctx->spawn($counter, 'c')]);

            return Behavior::ignore();
        }))->withSupervisor($strategy));
        $children = $probe->receiveMessage();
        \assert(\is_array($children));

        return array_values(array_filter($children, static fn(mixed $c): bool => $c instanceof ActorRef));
    }
}
