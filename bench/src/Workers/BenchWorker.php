<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Worker\EntityKind;
use Nexus\Worker\Slots;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\WorkerMain;
use Nexus\Worker\Workers;

/**
 * The worker side of `make bench-workers` and `make bench-cluster`. Every worker starts the same
 * local actors (a sink, an echo, a pump, a world driver) and the order shards; once the pool (or
 * the cluster) has $expectSlots slots, the lowest slot measures, writes the results as JSON to
 * $resultFile, and asks its master to stop.
 */
final class BenchWorker implements WorkerMain
{
    public const SHARDS = 256;

    private ?EntityKind $kind = null;

    /**
     * @param 'messaging'|'world'|'world-local'|'moves' $mode world-local: every worker has its own
     *                                                           shards and nothing crosses (the
     *                                                           machine's parallel ceiling); moves
     *                                                           ($orders entities): see moves()
     */
    public function __construct(
        private readonly string $mode,
        private readonly string $resultFile,
        private readonly int $messages,
        private readonly int $asks,
        private readonly int $orders,
        private readonly int $expectSlots = 0,
    ) {}

    public function run(WorkerContext $context): int
    {
        $loop = new Loop();
        $loop->collectCyclesInBatches(); // as nexus serve does
        $system = new ActorSystem("bench-{$context->id}", new StderrLogger(), $loop);
        $workers = $context->join($system);
        $workers->registerMessage(WorldOrder::class);
        $system->spawn(Actors::sink(), 'sink');
        $system->spawn(Actors::echo(), 'echo');
        $system->spawn(Actors::pump(), 'pump');
        $shards = [];
        if ($this->mode === 'world-local') {
            for ($s = 0; $s < self::SHARDS; ++$s) {
                $shards[] = $system->spawn(Actors::shard(), "local-shard-{$s}");
            }
        } else {
            $kind = $this->kind = $workers->kind('shard', static fn(): Behavior => Actors::shard());
            for ($s = 0; $s < self::SHARDS; ++$s) {
                $shards[] = $kind->ref("s{$s}");
            }
        }
        $system->spawn(self::driver($shards), 'driver');
        $stop = static function () use ($system): void {
            $system->shutdown(2.0);
        };
        $loop->onSignal(\SIGTERM, $stop);
        $context->watchMaster($loop, $stop);
        $context->ready();
        $loop->async(function () use ($workers, $system, $loop): void {
            // The cluster's view comes after the start: wait until every slot is in it.
            $expect = $this->expectSlots > 0 ? $this->expectSlots : $workers->count;
            $deadline = $loop->now() + 60.0;
            while (\count($workers->slots()) < $expect && $loop->now() < $deadline) {
                self::pause($loop, 0.01);
            }
            if ($workers->slots() === [] || $workers->slot() !== min($workers->slots())) {
                return; // another slot measures
            }
            try {
                $results = match ($this->mode) {
                    'messaging' => $this->messaging($workers, $system),
                    'moves' => $this->moves($workers, $loop),
                    default => $this->world($workers),
                };
                file_put_contents($this->resultFile, json_encode($results, \JSON_THROW_ON_ERROR));
            } catch (\Throwable $e) {
                file_put_contents($this->resultFile, json_encode(['error' => $e::class . ': ' . $e->getMessage()]));
            }
            posix_kill(posix_getppid(), \SIGTERM);
        });
        $system->run();

        return 0;
    }

    /**
     * Tells and asks from this slot to an actor on the same worker ('local'), on another worker of
     * this node ('worker') and on a worker of another node ('node'), each that exists, in one run:
     * msgs/s of a pump's tells, and each ask's round trip (the asks interleaved in rounds so that
     * a change in the machine's load falls on every target alike; the tells in three rounds, the
     * best of each kept).
     *
     * @return array<string, float|int|list<float>>
     */
    private function messaging(Workers $workers, ActorSystem $system): array
    {
        $this->waitForAll($workers);
        $pump = $system->lookup('/user/pump');
        \assert($pump !== null);
        $sinks = [];
        $echoes = [];
        foreach (self::targets($workers) as $name => $slot) {
            $sink = $workers->atSlot($slot, '/user/sink');
            $echo = $workers->atSlot($slot, '/user/echo');
            \assert($sink !== null && $echo !== null);
            $sinks[$name] = $sink;
            $echoes[$name] = $echo;
        }
        foreach ($sinks as $sink) { // warm-up
            $this->pump($pump, [$sink], intdiv($this->messages, 10));
        }
        foreach ($echoes as $echo) {
            $this->asks($echo, intdiv($this->asks, 10));
        }
        $results = ['workers' => \count($workers->slots()), 'messages' => $this->messages, 'asks' => $this->asks];
        // Three rounds over the targets in turn; each reports its best (all are kept).
        $rates = [];
        for ($round = 0; $round < 3; ++$round) {
            foreach ($sinks as $name => $sink) {
                $rates[$name][] = $this->messages / $this->pump($pump, [$sink], $this->messages);
            }
        }
        $latencies = [];
        $seconds = [];
        $rounds = max(1, min(10, intdiv($this->asks, 100)));
        for ($round = 0; $round < $rounds; ++$round) {
            $n = intdiv($this->asks, $rounds) + ($round === 0 ? $this->asks % $rounds : 0);
            foreach ($echoes as $name => $echo) {
                $times = [];
                $seconds[$name] = ($seconds[$name] ?? 0.0) + $this->asks($echo, $n, $times);
                $latencies[$name] = [...$latencies[$name] ?? [], ...$times];
            }
        }
        foreach ($rates as $name => $runs) {
            $results["{$name}_msgs_per_s"] = max($runs);
            $results["{$name}_msgs_per_s_runs"] = $runs;
        }
        foreach ($seconds as $name => $spent) {
            $results["{$name}_ask_rtt_us"] = $spent / $this->asks * 1e6;
            $results["{$name}_ask_p50_us"] = self::percentile($latencies[$name] ?? [], 0.50);
            $results["{$name}_ask_p99_us"] = self::percentile($latencies[$name] ?? [], 0.99);
        }
        // What bench-workers reports: the other worker (or, with none on this node, the other node).
        $pair = isset($sinks['worker']) ? 'worker' : 'node';
        $results['pair_msgs_per_s'] = max($rates[$pair] ?? [0.0]);
        $results['ask_rtt_us'] = ($seconds[$pair] ?? 0.0) / $this->asks * 1e6;

        $all = [];
        foreach ($workers->slots() as $slot) {
            $sink = $workers->atSlot($slot, '/user/sink');
            \assert($sink !== null);
            $all[] = $sink;
        }
        $fanout = $this->pump($pump, $all, 5000);

        return $results + [
            'fanout_messages' => 5000 * \count($all),
            'fanout_ms' => $fanout * 1000,
            'fanout_msgs_per_s' => 5000 * \count($all) / $fanout,
        ];
    }

    /**
     * `make bench-cluster`'s moves, on nodes A and B of one worker each, A measuring: $orders
     * entities are made active (each answered an ask); then the runner starts node C
     * ({resultFile}.join asks for it) and A times, from the view with C, until every entity
     * answers again (those that moved to C started there); then the runner kills node B with
     * SIGKILL ({resultFile}.kill asks for it, {resultFile}.killed holds when) and A times, from the
     * kill, until every entity that lived on B answers from its new owner.
     *
     * @return array<string, float|int>
     */
    private function moves(Workers $workers, Loop $loop): array
    {
        $kind = $this->kind ?? throw new \LogicException('No entity kind.');
        $this->waitForAll($workers);
        $ids = [];
        for ($i = 0; $i < $this->orders; ++$i) {
            $ids[] = "m{$i}";
        }
        $pending = $this->touch($kind, $ids, 30.0);
        if ($pending !== []) {
            throw new \RuntimeException(\count($pending) . ' entities did not answer before the join.');
        }
        $owners = [];
        foreach ($ids as $id) {
            $owners[$id] = $workers->ownerOf("shard/{$id}");
        }
        $slots = \count($workers->slots());
        file_put_contents("{$this->resultFile}.join", '1');
        $this->waitFor($loop, static fn(): bool => \count($workers->slots()) > $slots, 60.0, 'node C in the view');
        $start = hrtime(true);
        $this->untilAllAnswer($kind, $ids, $loop);
        $join = (hrtime(true) - $start) / 1e9;
        $movedOnJoin = 0;
        $onB = [];
        $self = Slots::node($workers->slot());
        $newest = max([$self, ...array_map(Slots::node(...), $workers->slots())]);
        foreach ($ids as $id) {
            $owner = $workers->ownerOf("shard/{$id}");
            $movedOnJoin += $owner !== $owners[$id] ? 1 : 0;
            if (Slots::node($owner) !== $self && Slots::node($owner) !== $newest) {
                $onB[] = $id;
            }
        }
        file_put_contents("{$this->resultFile}.kill", '1');
        $killed = "{$this->resultFile}.killed";
        $this->waitFor($loop, static fn(): bool => is_file($killed) && filesize($killed) > 0, 60.0, 'the kill of node B');
        $killedAt = (float) file_get_contents($killed);
        $this->untilAllAnswer($kind, $onB, $loop);
        $kill = microtime(true) - $killedAt;

        return [
            'workers' => $slots,
            'entities' => \count($ids),
            'moved_on_join' => $movedOnJoin,
            'join_seconds' => $join,
            'on_killed_node' => \count($onB),
            'kill_seconds' => $kill,
        ];
    }

    /**
     * Asks every entity of $ids for its stats until each has answered (a failed ask is asked
     * again 50 ms later), for at most 60 s.
     *
     * @param list<string> $ids
     */
    private function untilAllAnswer(EntityKind $kind, array $ids, Loop $loop): void
    {
        $deadline = $loop->now() + 60.0;
        while (($ids = $this->touch($kind, $ids, 0.5)) !== []) {
            if ($loop->now() > $deadline) {
                throw new \RuntimeException(\count($ids) . ' entities did not answer within 60 s.');
            }
            self::pause($loop, 0.05);
        }
    }

    /**
     * Asks each entity of $ids once, all at once, each ask $timeout s at most.
     *
     * @param list<string> $ids
     *
     * @return list<string> those that did not answer
     */
    private function touch(EntityKind $kind, array $ids, float $timeout): array
    {
        $asks = [];
        foreach ($ids as $id) {
            $asks[$id] = $kind->ref($id)->ask('stats', $timeout);
        }
        $failed = [];
        foreach ($asks as $id => $ask) {
            try {
                $ask->await();
            } catch (\Throwable) {
                $failed[] = (string) $id;
            }
        }

        return $failed;
    }

    /**
     * @param \Closure(): bool $condition
     */
    private function waitFor(Loop $loop, \Closure $condition, float $timeout, string $what): void
    {
        $deadline = $loop->now() + $timeout;
        while (!$condition()) {
            if ($loop->now() > $deadline) {
                throw new \RuntimeException("Waited {$timeout} s for {$what}.");
            }
            self::pause($loop, 0.01);
        }
    }

    private static function pause(Loop $loop, float $seconds): void
    {
        $wake = new Deferred($loop);
        $loop->delay($seconds, static fn() => $wake->resolve(null));
        $wake->future()->await();
    }

    /**
     * @return array<string, float|int>
     */
    private function world(Workers $workers): array
    {
        $this->waitForAll($workers);
        $this->orders($workers, intdiv($this->orders, 10)); // warm-up
        $before = $this->counted($workers);
        $start = hrtime(true);
        $this->orders($workers, $this->orders);
        $elapsed = (hrtime(true) - $start) / 1e9;
        $total = $this->orders * \count($workers->slots());
        $counted = $this->counted($workers) - $before;
        if ($counted !== $total) {
            throw new \RuntimeException("The shards counted {$counted} orders of {$total}.");
        }

        return [
            'workers' => \count($workers->slots()),
            'orders' => $total,
            'orders_per_s' => $total / $elapsed,
            'seconds' => $elapsed,
        ];
    }

    /**
     * Every worker's driver sends $perWorker orders and answers once the shards have counted
     * them; the count is then checked, outside the time measured by the caller.
     */
    private function orders(Workers $workers, int $perWorker): void
    {
        $done = [];
        foreach ($this->drivers($workers) as $driver) {
            $done[] = $driver->ask(['run', $perWorker], 120.0);
        }
        foreach ($done as $future) {
            $future->await();
        }
    }

    /**
     * Orders counted by the shards so far: those of every worker's driver when each has its own
     * (world-local), else those of the shared ones.
     */
    private function counted(Workers $workers): int
    {
        $drivers = $this->drivers($workers);
        $asks = [];
        foreach ($this->mode === 'world-local' ? $drivers : [$drivers[0]] as $driver) {
            $asks[] = $driver->ask('total', 30.0);
        }
        $total = 0;
        foreach ($asks as $ask) {
            $count = $ask->await();
            \assert(\is_int($count));
            $total += $count;
        }

        return $total;
    }

    /**
     * @return list<ActorRef>
     */
    private function drivers(Workers $workers): array
    {
        $drivers = [];
        foreach ($workers->slots() as $w) {
            $driver = $workers->atSlot($w, '/user/driver');
            \assert($driver !== null);
            $drivers[] = $driver;
        }

        return $drivers;
    }

    /**
     * ['run', n]: sends n orders over the shards, a burst per turn, then asks every shard for its
     * stats (each ask arrives after this driver's orders, order being kept per sender and
     * receiver) and answers 'done' once all have replied: every order has been counted.
     * 'total': answers the number of orders the shards have counted.
     *
     * @param list<ActorRef> $shards
     */
    private static function driver(array $shards): Behavior
    {
        $baskets = WorldOrder::baskets();
        $tiers = WorldOrder::TIERS;
        $count = \count($shards);

        return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($shards, $baskets, $tiers, $count): void {
            if ($message === 'total') {
                $ctx->reply(self::total($shards));

                return;
            }
            \assert(\is_array($message) && \is_int($message[1]));
            [, $n] = $message;
            $from = \is_int($message[2] ?? null) ? $message[2] : 0;
            $replyTo = $message[3] ?? $ctx->sender();
            $to = min($n, $from + Actors::BURST);
            for ($i = $from; $i < $to; ++$i) {
                $shards[$i % $count]->tell(new WorldOrder("c{$i}", $baskets[$i & 63], $tiers[$i & 3]));
            }
            if ($to < $n) {
                $ctx->self()->tell(['run', $n, $to, $replyTo]);
            } elseif ($replyTo instanceof ActorRef) {
                self::total($shards);
                $replyTo->tell('done');
            }
        });
    }

    /**
     * @param list<ActorRef> $shards
     */
    private static function total(array $shards): int
    {
        $asks = array_map(static fn(ActorRef $shard): Future => $shard->ask('stats', 30.0), $shards);
        $total = 0;
        foreach ($asks as $ask) {
            $stats = $ask->await();
            \assert(\is_array($stats) && \is_int($stats[0]));
            $total += $stats[0];
        }

        return $total;
    }

    /**
     * @param list<ActorRef> $targets
     *
     * @return float seconds until every target has received $n messages
     */
    private function pump(ActorRef $pump, array $targets, int $n): float
    {
        $start = hrtime(true);
        $done = array_map(static fn(ActorRef $target): Future => $target->ask(['expect', $n], 120.0), $targets);
        $pump->tell(['run', $targets, $n]);
        foreach ($done as $future) {
            $future->await();
        }

        return (hrtime(true) - $start) / 1e9;
    }

    /**
     * @param list<float> $latencies filled with each ask's round trip in µs
     *
     * @return float seconds for $n asks one after the other
     */
    private function asks(ActorRef $echo, int $n, array &$latencies = []): float
    {
        $start = hrtime(true);
        for ($i = 0; $i < $n; ++$i) {
            $sent = hrtime(true);
            $echo->ask($i, 10.0)->await();
            $latencies[] = (hrtime(true) - $sent) / 1e3;
        }

        return (hrtime(true) - $start) / 1e9;
    }

    /**
     * @param list<float> $values
     */
    private static function percentile(array $values, float $p): float
    {
        if ($values === []) {
            return 0.0;
        }
        sort($values);

        return $values[min(\count($values) - 1, (int) floor($p * \count($values)))];
    }

    /**
     * This slot ('local'), another worker of this node ('worker') and a worker of another node
     * ('node'), those that exist; at least one besides 'local'.
     *
     * @return array<'local'|'worker'|'node', int>
     */
    private static function targets(Workers $workers): array
    {
        $self = $workers->slot();
        $targets = ['local' => $self];
        foreach ($workers->slots() as $slot) {
            $kind = Slots::node($slot) === Slots::node($self) ? 'worker' : 'node';
            if ($slot !== $self && !isset($targets[$kind])) {
                $targets[$kind] = $slot;
            }
        }
        if (\count($targets) < 2) {
            throw new \RuntimeException('The messaging benchmark needs two slots.');
        }

        return $targets;
    }

    private function waitForAll(Workers $workers): void
    {
        foreach ($workers->slots() as $w) {
            $sink = $workers->atSlot($w, '/user/sink');
            \assert($sink !== null);
            $sink->ask('ping', 10.0)->await();
        }
    }
}
