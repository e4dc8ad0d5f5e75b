<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Demo\Counter\Incremented;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Persistence;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Worker\EntityKind;
use Nexus\Worker\EntitySettings;
use Nexus\Worker\Exception\DeliveryUnknownException;
use Nexus\Worker\Exception\NodeLostException;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\PlacedActorRef;
use Nexus\Worker\Slots;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * Placement over the slots of a cluster, routing, and what a change of view does, with nodes in
 * one process (InProcessCluster): durable counters in one SQLite file shared by every node, as
 * nodes on one machine share --data-dir.
 */
final class ClusterPlacementTest extends TestCase
{
    use RunsTheLoop;

    private Loop $loop;
    private InProcessCluster $cluster;
    private string $dir;
    /** @var array<int, array<int, EntityKind>> counter kinds by node and worker */
    private array $counters = [];
    /** @var array<int, array<int, EntityKind>> counters that passivate, by node and worker */
    private array $sleepy = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->cluster = new InProcessCluster($this->loop);
        $this->dir = sys_get_temp_dir() . '/nexus-placement-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0o700);
        $this->giveUpAfter(60.0);
    }

    protected function tearDown(): void
    {
        $this->cluster->cleanUp();
        array_map('unlink', glob($this->dir . '/*') ?: []);
        @rmdir($this->dir);
    }

    public function testThreeNodesOfTwoWorkersCountExactlyWhicheverWorkerIsAsked(): void
    {
        foreach (['a', 'b', 'c'] as $name) {
            $this->node($name);
        }
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $names = self::names('c', 24);
        $acked = $this->increment($names, 10);

        $totals = $this->totals($names);
        self::assertSame($acked, $totals);
        self::assertSame(array_fill_keys($names, 10), $totals);
        $view = $this->cluster->view;
        self::assertNotNull($view);
        $nodes = [];
        foreach ($names as $name) {
            $hosts = $this->hostsOf("/user/counter/{$name}");
            self::assertCount(1, $hosts, "{$name} lives on one worker of the cluster");
            [$workers] = $this->cluster->all()[0];
            self::assertSame([$workers->ownerOf("counter/{$name}")], $hosts, "{$name} lives on its owner");
            $nodes[Slots::node($workers->ownerOf("counter/{$name}"))] = true;
        }
        self::assertCount(3, $nodes, 'the counters spread over the three nodes');
    }

    public function testANodeThatJoinsTakesItsShareAndEveryCountStaysExact(): void
    {
        $this->node('a');
        $this->node('b');
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $names = self::names('j', 30);
        $acked = $this->increment($names, 5);
        $before = [];
        foreach ($names as $name) {
            $before[$name] = $this->hostsOf("/user/counter/{$name}")[0] ?? -1;
        }

        // Increments keep coming while the third node joins and entities move to it.
        $pending = $this->incrementAsync($names, 5);
        $c = $this->node('c');
        $this->runUntil(fn(): bool => $this->cluster->isSettled() && $this->settled($pending));
        foreach ($this->collect($pending) as $name => $count) {
            $acked[$name] += $count;
        }
        $acked = $this->addAll($acked, $this->increment($names, 5));

        self::assertSame($acked, $this->totals($names));
        $moved = 0;
        foreach ($names as $name) {
            $hosts = $this->hostsOf("/user/counter/{$name}");
            self::assertCount(1, $hosts, "{$name} has one owner after the move");
            if (($hosts[0] ?? -1) !== ($before[$name] ?? -1)) {
                self::assertSame($c, Slots::node($hosts[0] ?? 0), 'entities move only to the node that joined');
                ++$moved;
            }
        }
        self::assertGreaterThan(0, $moved, 'part of the entities moved');
        self::assertLessThan(\count($names), $moved, 'only part of them');
    }

    public function testAStaleLocalRefToAnEntityThatMovedReachesItsNewOwnerInsteadOfRestartingIt(): void
    {
        $this->node('a');
        $this->node('b');
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $names = self::names('s', 30);
        self::assertSame(array_fill_keys($names, 1), $this->increment($names, 1));
        $stale = [];
        foreach ($this->cluster->all() as [, $system]) {
            foreach ($names as $name) {
                $stale[$name] ??= $system->endpoint("/user/counter/{$name}"); // the local ref its owner holds
            }
        }
        self::assertCount(30, array_filter($stale));

        $c = $this->node('c');
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $moved = [];
        foreach ($names as $name) {
            $this->runUntil(fn(): bool => \count($this->hostsOf("/user/counter/{$name}")) <= 1);
            if (($stale[$name] ?? null)?->isStopping() === true) {
                $moved[] = $name;
            }
        }
        self::assertNotEmpty($moved, 'part of the counters moved to the node that joined');
        $asks = [];
        foreach ($moved as $name) {
            $ref = $stale[$name] ?? null;
            \assert($ref !== null);
            $this->runUntil(static fn(): bool => $ref->isTerminated());
            $asks[$name] = $ref->ask('increment', 15.0); // through the old incarnation's own ref
        }
        $this->runUntil(static function () use ($asks): bool {
            foreach ($asks as $ask) {
                if (!$ask->isSettled()) {
                    return false;
                }
            }

            return true;
        });
        foreach ($asks as $name => $ask) {
            self::assertSame(2, $ask->await(), "{$name}: the increment reached the counter where it lives now");
            self::assertSame([$c], array_map(Slots::node(...), $this->hostsOf("/user/counter/{$name}")), "{$name} has one owner, on the node that joined");
        }
    }

    public function testAPassivatedEntityOfAClusterStartsAgainWhereItIsPlacedWithItsState(): void
    {
        $a = $this->node('a');
        $this->node('b');
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $kind = $this->sleepy[$a][0] ?? null;
        \assert($kind !== null);
        $ask = static fn(): Future => $kind->ref('nap')->ask('increment', 15.0);
        foreach ([1, 2, 3] as $expected) {
            $answer = $ask();
            $this->runUntil(static fn(): bool => $answer->isSettled());
            self::assertSame($expected, $answer->await());
        }
        $host = $this->hostsOf('/user/sleepy/nap');
        self::assertCount(1, $host);

        $this->runUntil(fn(): bool => $this->hostsOf('/user/sleepy/nap') === []); // idle for 0.3 s: passivated
        $answer = $ask();
        $this->runUntil(static fn(): bool => $answer->isSettled());
        self::assertSame(4, $answer->await(), 'recovered from the journal');
        self::assertSame($host, $this->hostsOf('/user/sleepy/nap'), 'started again on the slot the view places it on');
    }

    public function testMessagesForAnActorThatCannotStartYetWaitUntilTheViewSettles(): void
    {
        $this->cluster->autoSettle = false;
        $a = $this->node('a');
        $this->runFor(0.1);
        [$workers] = $this->cluster->worker($a, 0);
        $ref = $this->counters[$a][0]->ref('early');
        self::assertInstanceOf(PlacedActorRef::class, $ref);
        $ask = $ref->ask('increment', 10.0);
        $this->runFor(0.2);
        self::assertFalse($ask->isSettled(), 'held: the view is not settled');

        $this->cluster->autoSettle = true;
        $this->cluster->settle(); // the applied marks arrive
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $this->runUntil(static fn(): bool => $ask->isSettled());
        self::assertSame(1, $ask->await());
        self::assertGreaterThan(-1, $workers->ownerOf('counter/early'));
    }

    public function testAFencedNodeStopsItsEntitiesAndRefusesAtOnce(): void
    {
        $a = $this->node('a');
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $this->increment(['f1', 'f2', 'f3'], 2);
        self::assertNotSame([], $this->hostsOf('/user/counter/f1'));

        $this->cluster->fence($a, 'etcd is unreachable');
        $this->runUntil(fn(): bool => $this->hostsOf('/user/counter/f1') === [] && $this->hostsOf('/user/counter/f2') === []);
        $ask = $this->counters[$a][1]->ref('f1')->ask('increment', 10.0);
        $started = microtime(true);
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertLessThan(1.0, microtime(true) - $started, 'an ask fails fast');
        $this->expectException(NotDeliveredException::class);
        $this->expectExceptionMessage('this node is not hosting: etcd is unreachable');
        $ask->await();
    }

    public function testANodeLostTakesWhatWasInFlightToDeadLettersAndItsEntitiesComeUpElsewhereWithTheirState(): void
    {
        $a = $this->node('a');
        $b = $this->node('b');
        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        $names = self::names('k', 20);
        $acked = $this->increment($names, 3);
        $onB = array_values(array_filter($names, fn(string $n): bool => Slots::node($this->hostsOf("/user/counter/{$n}")[0] ?? 0) === $b));
        $first = $onB[0] ?? self::fail('some counters live on b');

        [, $systemA] = $this->cluster->worker($a, 0);
        $dead = [];
        $systemA->eventStream->subscribe($systemA->spawn(Behavior::receive(static function (DeadLetter $letter) use (&$dead): void {
            $dead[] = $letter->reason;
        })), DeadLetter::class);
        $this->cluster->kill($b);
        $lost = $this->counters[$a][0]->ref($first)->ask('increment', 10.0); // to the dead node
        $sentAt = microtime(true);
        $this->cluster->expire($b); // its lease expires: the view drops it
        $this->runUntil(static fn(): bool => $lost->isSettled());
        self::assertLessThan(5.0, microtime(true) - $sentAt, 'the ask failed fast, not at its timeout');
        try {
            $lost->await();
            self::fail('the ask to the lost node cannot succeed');
        } catch (NodeLostException | DeliveryUnknownException | NotDeliveredException) {
            // on the wire when the node died (delivery unknown), or never sent (node lost)
        }
        [$workersA] = $this->cluster->worker($a, 0);
        $workersA->remoteRef(Slots::id($b, 0), '/user/counter/' . $first)->tell('increment');
        $this->runUntil(static function () use (&$dead): bool {
            return \in_array(DeadLetterReason::NodeLost, $dead, true); // a message for a node that left
        });

        $this->runUntil(fn(): bool => $this->cluster->isSettled());
        unset($this->counters[$b]);
        $totals = $this->totals($names);
        foreach ($names as $name) {
            self::assertGreaterThanOrEqual($acked[$name], $totals[$name], "{$name}: no acknowledged increment lost");
            self::assertLessThanOrEqual($acked[$name] + ($name === $first ? 1 : 0), $totals[$name], "{$name}: none doubled");
        }
        foreach ($onB as $name) {
            self::assertSame([$a], array_map(Slots::node(...), $this->hostsOf("/user/counter/{$name}")), "{$name} came up on the node left");
        }
    }

    /**
     * @return list<string>
     */
    private static function names(string $prefix, int $count): array
    {
        $names = [];
        for ($i = 1; $i <= $count; ++$i) {
            $names[] = $prefix . $i;
        }

        return $names;
    }

    private function node(string $name): int
    {
        $file = $this->dir . '/nexus.sqlite';
        $node = 0;

        return $node = $this->cluster->startNode($name, 2, function (Workers $workers, ActorSystem $system, int $node, int $worker) use ($file): void {
            $persistence = Persistence::sqlite($system, $file);
            $persistence->types->register(Incremented::class, 'demo.counter.incremented');
            $workers->registerMessage(CommandFailed::class);
            $counter = static fn(string $id): Behavior => $persistence->eventSourced(
                "counter|{$id}",
                0,
                static fn(int $value, mixed $command, ActorContext $ctx): Effect => match ($command) {
                    'increment' => Effect::persist(new Incremented())->thenReply(static fn(int $value): int => $value),
                    default => Effect::reply($value),
                },
                static fn(int $value, object $event): int => $value + 1,
            )->behavior();
            $this->counters[$node][$worker] = $workers->kind('counter', $counter);
            // The same counters, passivated after 0.3 s idle.
            $this->sleepy[$node][$worker] = $workers->kind('sleepy', $counter, new EntitySettings(idleTimeout: 0.3));
        });
    }

    /**
     * Sends $times increments to each counter through every worker in turn and waits for the
     * answers; returns how many each acknowledged.
     *
     * @param list<string> $names
     *
     * @return array<string, int>
     */
    private function increment(array $names, int $times): array
    {
        $pending = $this->incrementAsync($names, $times);
        $this->runUntil(fn(): bool => $this->settled($pending));

        return $this->collect($pending);
    }

    /**
     * @param list<string> $names
     *
     * @return array<string, list<Future<mixed>>>
     */
    private function incrementAsync(array $names, int $times): array
    {
        $kinds = [];
        foreach ($this->counters as $workers) {
            foreach ($workers as $kind) {
                $kinds[] = $kind;
            }
        }
        $pending = [];
        $i = 0;
        foreach ($names as $name) {
            for ($t = 0; $t < $times; ++$t) {
                $pending[$name][] = $kinds[$i++ % \count($kinds)]->ref($name)->ask('increment', 15.0);
            }
        }

        return $pending;
    }

    /**
     * @param array<string, list<Future<mixed>>> $pending
     */
    private function settled(array $pending): bool
    {
        foreach ($pending as $futures) {
            foreach ($futures as $future) {
                if (!$future->isSettled()) {
                    return false;
                }
            }
        }

        return true;
    }

    /**
     * @param array<string, list<Future<mixed>>> $pending
     *
     * @return array<string, int> acknowledged increments by counter
     */
    private function collect(array $pending): array
    {
        $acked = [];
        foreach ($pending as $name => $futures) {
            $acked[$name] = 0;
            foreach ($futures as $future) {
                try {
                    if (\is_int($future->await())) {
                        ++$acked[$name];
                    }
                } catch (\Throwable) {
                    // not acknowledged
                }
            }
        }

        return $acked;
    }

    /**
     * @param array<string, int> $a
     * @param array<string, int> $b
     *
     * @return array<string, int>
     */
    private function addAll(array $a, array $b): array
    {
        foreach ($b as $name => $count) {
            $a[$name] = ($a[$name] ?? 0) + $count;
        }

        return $a;
    }

    /**
     * @param list<string> $names
     *
     * @return array<string, int>
     */
    private function totals(array $names): array
    {
        $kinds = [];
        foreach ($this->counters as $workers) {
            foreach ($workers as $kind) {
                $kinds[] = $kind;
            }
        }
        $asks = [];
        foreach ($names as $i => $name) {
            $asks[$name] = $kinds[$i % \count($kinds)]->ref($name)->ask('get', 15.0);
        }
        $this->runUntil(static function () use ($asks): bool {
            foreach ($asks as $ask) {
                if (!$ask->isSettled()) {
                    return false;
                }
            }

            return true;
        });
        $totals = [];
        foreach ($asks as $name => $ask) {
            $value = $ask->await();
            self::assertIsInt($value);
            $totals[$name] = $value;
        }

        return $totals;
    }

    /**
     * The slots where an actor lives now.
     *
     * @return list<int>
     */
    private function hostsOf(string $path): array
    {
        $hosts = [];
        foreach ($this->cluster->all() as [$workers, $system]) {
            $endpoint = $system->endpoint($path);
            if ($endpoint !== null && !$endpoint->isStopping()) {
                $hosts[] = $workers->slot();
            }
        }

        return $hosts;
    }
}
