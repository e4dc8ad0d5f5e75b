<?php

declare(strict_types=1);

namespace Nexus\Bench\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Signal\Signal;
use Nexus\Bench\CpuTime;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\Effect;
use Nexus\Persistence\EventSourcedBehavior;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\PersistenceSettings;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Persistence\Store\Store;
use Nexus\Runtime\Deferred;

/**
 * The persistence benchmark's cases, each run in a process of its own on a fresh database
 * (bench/persistence/case.php), each beside its baseline of plain SQL measured in the same run:
 *
 * - single: one actor persisting and replying, one command after the other.
 * - concurrent: $actors actors each with one command in flight (group commit).
 * - recovery-one: one actor recovering $events events.
 * - recovery-many: $actors actors recovering $events events each.
 *
 * A result is an array of figures (events/s, latency percentiles, the baseline's, the store's
 * share of the time); the best of $repeats runs is kept. The concurrent and recovery cases time
 * from the first command (or spawn) to the last reply (or recovery), after the actors of the
 * concurrent case have recovered. Each run of the concurrent case starts from an empty journal,
 * as each run of its baseline starts from an empty table; the runs' cyclic garbage is collected
 * between runs, outside the timing. CPU time per event (getrusage) goes with the rates: the
 * load of the shared machine disturbs it less.
 */
final class PersistenceCases
{
    public function __construct(
        private readonly string $store,
        private readonly int $repeats = 3,
    ) {
        if ($repeats < 1) {
            throw new \InvalidArgumentException("A case runs at least once, got {$repeats} repeats.");
        }
    }

    /**
     * @return array<string, int|float|string>
     */
    public function run(string $case, int $actors, int $events): array
    {
        return match ($case) {
            'single' => $this->single($events),
            'concurrent' => $this->concurrent($actors, $events),
            'recovery-one' => $this->recovery(1, $events),
            'recovery-many' => $this->recovery($actors, $events),
            default => throw new \InvalidArgumentException("Unknown case '{$case}': single, concurrent, recovery-one or recovery-many."),
        };
    }

    /**
     * @return array<string, int|float|string>
     */
    private function single(int $events): array
    {
        $best = null;
        for ($run = 0; $run < $this->repeats; ++$run) {
            [$system, $persistence] = $this->open();
            $counter = $this->spawnRecovered($system, $this->counter($persistence, "single-{$run}"));
            $latencies = [];
            $start = hrtime(true);
            for ($i = 1; $i <= $events; ++$i) {
                $sent = hrtime(true);
                $reply = $counter->ask('inc', 10.0)->await();
                $latencies[] = (hrtime(true) - $sent) / 1e9;
                if ($reply !== $i) {
                    throw new \RuntimeException('The counter answered ' . var_export($reply, true) . " to command {$i}.");
                }
            }
            $seconds = (hrtime(true) - $start) / 1e9;
            $this->close($system);
            $result = ['events' => $events, 'seconds' => $seconds, 'events_per_s' => $events / $seconds, ...self::percentiles($latencies)];
            if ($best === null || $result['events_per_s'] > $best['events_per_s']) {
                $best = $result;
            }
        }
        \assert($best !== null);
        $baseline = new Baseline((new ActorSystem('baseline', new MemoryLogger()))->loop, $this->store);
        $bestBaseline = null;
        for ($run = 0; $run < $this->repeats; ++$run) {
            $baseline->reset();
            $start = hrtime(true);
            $latencies = $baseline->sequential($events);
            $rate = $events / ((hrtime(true) - $start) / 1e9);
            if ($bestBaseline === null || $rate > $bestBaseline['rate']) {
                $bestBaseline = ['rate' => $rate, ...self::percentiles($latencies)];
            }
        }
        $baseline->close();

        return [...$best, 'baseline_events_per_s' => $bestBaseline['rate'], 'baseline_p50_ms' => $bestBaseline['p50_ms'], 'baseline_p99_ms' => $bestBaseline['p99_ms']];
    }

    /**
     * @return array<string, int|float|string>
     */
    private function concurrent(int $actors, int $events): array
    {
        $best = null;
        for ($run = 0; $run < $this->repeats; ++$run) {
            if ($run > 0) {
                $cleaner = new Baseline((new ActorSystem('cleaner', new MemoryLogger()))->loop, $this->store);
                $cleaner->emptyStoreJournal();
                $cleaner->close();
            }
            [$system, $persistence, $timed] = $this->open();
            $refs = [];
            $recovered = 0;
            /** @var Deferred<null> $ready */
            $ready = new Deferred($system->loop);
            for ($i = 0; $i < $actors; ++$i) {
                $refs[] = $system->spawn($this->counter($persistence, "c-{$run}-{$i}")->onSignal(static function (Signal $signal) use (&$recovered, $actors, $ready): void {
                    if ($signal instanceof RecoveryCompleted && ++$recovered === $actors) {
                        $ready->tryResolve(null);
                    }
                })->behavior());
            }
            $ready->future()->await(120.0);
            /** @var Deferred<null> $done */
            $done = new Deferred($system->loop);
            $driver = new ReplyCounter($events, $done, 'inc');
            $transactions = $persistence->groupCommit->transactions();
            $storeBefore = $timed->writeSeconds;
            $gcRuns = gc_status()['runs'];
            $cpu = CpuTime::total();
            $start = hrtime(true);
            foreach ($refs as $ref) {
                $ref->tell('inc', $driver);
            }
            $done->future()->await(300.0);
            $seconds = (hrtime(true) - $start) / 1e9;
            $cpu = CpuTime::total() - $cpu;
            if ($driver->failures > 0) {
                throw new \RuntimeException("{$driver->failures} commands failed in the concurrent case.");
            }
            $transactions = $persistence->groupCommit->transactions() - $transactions;
            $result = [
                'events' => $driver->replies,
                'seconds' => $seconds,
                'events_per_s' => $driver->replies / $seconds,
                'transactions' => $transactions,
                'events_per_transaction' => $driver->replies / max(1, $transactions),
                'store_share' => ($timed->writeSeconds - $storeBefore) / $seconds,
                'cpu_us_per_event' => $cpu / max(1, $driver->replies) * 1e6,
                'gc_runs' => gc_status()['runs'] - $gcRuns,
            ];
            $this->close($system);
            if ($best === null || $result['events_per_s'] > $best['events_per_s']) {
                $best = $result;
            }
        }
        \assert($best !== null);
        $baseline = new Baseline((new ActorSystem('baseline', new MemoryLogger()))->loop, $this->store);
        $rate = 0.0;
        $rounds = max(1, intdiv($events, $actors));
        for ($run = 0; $run < $this->repeats; ++$run) {
            $baseline->reset();
            $rate = max($rate, $rounds * $actors / $baseline->batched($actors, $rounds, (int) round($best['events_per_transaction'])));
        }
        $baseline->close();

        return [...$best, 'baseline_events_per_s' => $rate, 'baseline_batch' => (int) round($best['events_per_transaction'])];
    }

    /**
     * @return array<string, int|float|string>
     */
    private function recovery(int $actors, int $events): array
    {
        [$system, $persistence] = $this->open();
        $ids = [];
        for ($i = 0; $i < $actors; ++$i) {
            $ids[] = "r-{$actors}-{$i}";
        }
        $payload = $persistence->types->encodeEvent(new Incremented());
        $writes = [];
        foreach ($ids as $id) {
            for ($from = 1; $from <= $events; $from += 1000) {
                $writes[] = new AtomicWrite($id, $from, 1, array_fill(0, min(1000, $events - $from + 1), $payload));
                if (\count($writes) * min(1000, $events) >= 2000) {
                    $persistence->store->writeEvents($writes)->await(120.0);
                    $writes = [];
                }
            }
        }
        if ($writes !== []) {
            $persistence->store->writeEvents($writes)->await(120.0);
        }
        $this->close($system);

        $best = null;
        for ($run = 0; $run < $this->repeats; ++$run) {
            [$system, $persistence, $timed] = $this->open();
            $recovered = 0;
            /** @var Deferred<null> $all */
            $all = new Deferred($system->loop);
            $gcRuns = gc_status()['runs'];
            $cpu = CpuTime::total();
            $start = hrtime(true);
            foreach ($ids as $id) {
                $system->spawn($this->counter($persistence, $id)->onSignal(static function (Signal $signal) use (&$recovered, $actors, $all, $events): void {
                    if ($signal instanceof RecoveryCompleted) {
                        if ($signal->state !== $events) {
                            throw new \RuntimeException('A counter recovered ' . var_export($signal->state, true) . ", not {$events}.");
                        }
                        if (++$recovered === $actors) {
                            $all->tryResolve(null);
                        }
                    }
                })->behavior());
            }
            $all->future()->await(300.0);
            $seconds = (hrtime(true) - $start) / 1e9;
            $cpu = CpuTime::total() - $cpu;
            $result = [
                'actors' => $actors,
                'events' => $actors * $events,
                'seconds' => $seconds,
                'events_per_s' => $actors * $events / $seconds,
                'actors_per_s' => $actors / $seconds,
                'store_share' => $timed->readSeconds / $seconds,
                'cpu_us_per_event' => $cpu / ($actors * $events) * 1e6,
                'gc_runs' => gc_status()['runs'] - $gcRuns,
            ];
            $this->close($system);
            if ($best === null || $result['events_per_s'] > $best['events_per_s']) {
                $best = $result;
            }
        }
        \assert($best !== null);
        $baseline = new Baseline((new ActorSystem('baseline', new MemoryLogger()))->loop, $this->store);
        $baseline->reset();
        $baseline->fill($ids, $events);
        // The baseline is the faster of two plain readers: a SELECT per id, and (for many
        // actors) one SELECT for 100 ids at a time.
        $rate = $perId = 0.0;
        for ($run = 0; $run < $this->repeats; ++$run) {
            [$seconds, $rows] = $baseline->read($ids, 1000);
            $perId = max($perId, $rows / $seconds);
            if ($actors > 1) {
                [$seconds, $rows] = $baseline->readMany($ids);
                $rate = max($rate, $rows / $seconds);
            }
        }
        $baseline->close();

        return [...$best, 'baseline_events_per_s' => max($rate, $perId), 'baseline_per_id_events_per_s' => $perId, 'baseline_batched_events_per_s' => $rate];
    }

    /**
     * @return array{ActorSystem, Persistence, TimedStore}
     */
    private function open(): array
    {
        // The cycle collection `nexus serve` runs (Loop::collectCyclesInBatches(), which backs off
        // when collections free little), not PHP's automatic one.
        $system = new ActorSystem('bench', new MemoryLogger());
        $system->loop->collectCyclesInBatches();
        $store = new TimedStore($this->createStore($system));
        $types = (new TypeRegistry())->register(Incremented::class, 'bench.incremented');

        return [$system, new Persistence($system, $store, $types, new PersistenceSettings(stashCapacity: 10_000, maxPendingWrites: 100_000)), $store];
    }

    private function createStore(ActorSystem $system): Store
    {
        return str_starts_with($this->store, 'sqlite:')
            ? new SqliteStore($system->loop, substr($this->store, 7))
            : new PostgresStore($system->loop, PostgresUrl::parse($this->store));
    }

    private function close(ActorSystem $system): void
    {
        $system->shutdown()->await(30.0);
        // The run's cyclic garbage (the actors, the loop) is freed here, not by a collection
        // inside the next run's timing.
        gc_collect_cycles();
    }


    private function counter(Persistence $persistence, string $id): EventSourcedBehavior
    {
        return $persistence->eventSourced(
            $id,
            0,
            static fn(int $count, mixed $command, ActorContext $ctx): Effect => Effect::persist(new Incremented())->thenReply(static fn(int $count): int => $count),
            static fn(int $count, object $event): int => $count + 1,
        );
    }

    private function spawnRecovered(ActorSystem $system, EventSourcedBehavior $behavior): ActorRef
    {
        /** @var Deferred<null> $recovered */
        $recovered = new Deferred($system->loop);
        $ref = $system->spawn($behavior->onSignal(static function (Signal $signal) use ($recovered): void {
            if ($signal instanceof RecoveryCompleted) {
                $recovered->tryResolve(null);
            }
        })->behavior());
        $recovered->future()->await(30.0);

        return $ref;
    }

    /**
     * @param list<float> $seconds
     *
     * @return array{p50_ms: float, p99_ms: float}
     */
    private static function percentiles(array $seconds): array
    {
        sort($seconds);
        $count = \count($seconds);

        return [
            'p50_ms' => $seconds[(int) floor(($count - 1) * 0.5)] * 1000,
            'p99_ms' => $seconds[(int) floor(($count - 1) * 0.99)] * 1000,
        ];
    }
}
