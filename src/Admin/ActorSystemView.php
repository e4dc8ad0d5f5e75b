<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Actor\ActorStats;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorRestarted;
use Nexus\Actor\Event\ActorStarted;
use Nexus\Actor\Event\ActorStopped;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Props;
use Nexus\Metrics\Aggregation;
use Nexus\Metrics\CounterSeries;
use Nexus\Metrics\Registry;
use Nexus\Pool\PoolDirectory;

/**
 * The SystemView of one in-process ActorSystem, built on the actor layer's public API only: the
 * tree from ActorSystem::inspect() (path, kind, mailbox depth, messages processed), and an
 * observer actor (/system/nexus-admin-view) subscribed to ActorStarted, ActorStopped,
 * ActorRestarted and DeadLetter on the event stream for the counters and the recent dead
 * letters. It enables the system's ActorStats and registers in $registry:
 *
 * - nexus_actors_started_total, nexus_actors_stopped_total, nexus_actors_restarted_total and the
 *   gauge nexus_actors_live, each with a `scope` label: `user` for the application's actors
 *   (/user/...), `system` for the runtime's (/user and /system themselves, /system/...). Actors
 *   start on their first turn, so a view created right after its system sees every actor;
 *   one created later misses those already started;
 * - nexus_actor_messages_processed_total{kind}, the sampled processing time and messages by
 *   kind, nexus_actor_mailbox_depth{kind} (the DEEPEST deepest mailboxes), nexus_ask_timeouts_total;
 * - nexus_dead_letters_total{reason} (read from DeadLetters: every dead letter of the system);
 * - process_cpu_time_seconds_total and process_memory_usage_bytes (this process).
 *
 * While the view lives, every spawn, stop and dead letter publishes an event, which costs an
 * allocation and a message to the observer; the walks over the actors happen when read.
 *
 * Bounds: at most $maxActors actors are walked per read (the tree shows the first ones), the last
 * $keepDeadLetters dead letters (message class only, never the payload), at most 32 pools.
 */
final class ActorSystemView implements SystemView
{
    public const OBSERVER = 'nexus-admin-view';
    public const MAX_POOLS = 32;
    /** How many of the deepest mailboxes nexus_actor_mailbox_depth shows. */
    public const DEEPEST = 10;

    /** @var array{user: int, system: int} */
    private array $live = ['user' => 0, 'system' => 0];
    /** @var list<array{seq: int, at: float, worker: string, recipient: string, reason: string, message: string, sender: string}> */
    private array $deadLetters = [];
    private int $deadLetterSeq;
    private readonly float $startedAt;
    /** @var array{user: CounterSeries, system: CounterSeries} */
    private readonly array $started;
    /** @var array{user: CounterSeries, system: CounterSeries} */
    private readonly array $stopped;
    /** @var array{user: CounterSeries, system: CounterSeries} */
    private readonly array $restarted;
    /** @var array<string, array{string, \Closure(): array{open: int, inUse: int, waiting: int, max: int}}> */
    private array $pools = [];

    /**
     * @param (\Closure(): int)|null $requests requests served so far (HttpServer::requestsServed(...)), if any
     */
    public function __construct(
        private readonly ActorSystem $system,
        Registry $registry,
        private readonly ?\Closure $requests = null,
        private readonly string $worker = '0',
        private readonly int $maxActors = 10_000,
        private readonly int $keepDeadLetters = 100,
    ) {
        if ($maxActors < 1 || $keepDeadLetters < 1) {
            throw new \InvalidArgumentException("An ActorSystemView keeps at least 1 actor and 1 dead letter, got {$maxActors} and {$keepDeadLetters}.");
        }
        $this->startedAt = microtime(true);
        $this->deadLetterSeq = $system->deadLetters->count();
        $started = $registry->counter('nexus.actors.started', 'Actors started (since the admin view was created), by scope: user or system.', ['scope'], '{actor}');
        $stopped = $registry->counter('nexus.actors.stopped', 'Actors stopped (since the admin view was created), by scope.', ['scope'], '{actor}');
        $restarted = $registry->counter('nexus.actors.restarted', 'Actors restarted by their supervisor, by scope.', ['scope'], '{actor}');
        $this->started = ['user' => $started->labels('user'), 'system' => $started->labels('system')];
        $this->stopped = ['user' => $stopped->labels('user'), 'system' => $stopped->labels('system')];
        $this->restarted = ['user' => $restarted->labels('user'), 'system' => $restarted->labels('system')];
        $registry->gaugeCallback('nexus.actors.live', 'Actors alive now (started since the admin view was created, not yet stopped), by scope.', fn(): array => [[['user'], $this->live['user']], [['system'], $this->live['system']]], ['scope'], '{actor}');
        $deadLetters = $system->deadLetters;
        $registry->counterCallback('nexus.dead_letters', 'Messages that could not be delivered, by reason.', static function () use ($deadLetters): array {
            $rows = [];
            foreach (DeadLetterReason::cases() as $reason) {
                $rows[] = [[$reason->value], $deadLetters->countFor($reason)];
            }

            return $rows;
        }, ['reason'], '{message}');
        $system->enableStats();
        $stats = $system->stats;
        $registry->counterCallback('nexus.actor.messages.processed', 'Messages handled by actors, by kind (the Actor class, a Props::withKind() label, or where the behavior was written).', function () use ($stats): array {
            $byKind = $stats->processedByStopped;
            $this->system->inspect(static function (string $path, string $kind, int $mailbox, int $processed) use (&$byKind): void {
                if ($processed > 0) {
                    $byKind[$kind] = ($byKind[$kind] ?? 0) + $processed;
                }
            }, $this->maxActors);

            return self::rows($byKind);
        }, ['kind'], '{message}');
        $registry->counterCallback('nexus.actor.processing.sampled_time', 'Time spent handling messages in sampled turns (' . ActorStats::SAMPLES_PER_SECOND . ' turns a second), by kind; divide by nexus_actor_processing_sampled_messages_total for the mean per message.', static fn(): array => self::rows($stats->sampledSeconds), ['kind'], 's');
        $registry->counterCallback('nexus.actor.processing.sampled_messages', 'Messages handled in the sampled turns, by kind.', static fn(): array => self::rows($stats->sampledMessages), ['kind'], '{message}');
        $registry->gaugeCallback('nexus.actor.mailbox.depth', \sprintf('Messages waiting in the deepest mailboxes: the %d deepest actors, the deepest per kind.', self::DEEPEST), function (): array {
            return self::rows($this->deepestMailboxes());
        }, ['kind'], '{message}');
        $registry->counterCallback('nexus.ask.timeouts', 'Asks that got no reply in time.', static fn(): int => $stats->askTimeouts, unit: '{ask}');
        $registry->counterCallback('process.cpu.time', 'CPU time used by this process (user and system).', static fn(): float => self::cpuSeconds(), unit: 's', aggregation: Aggregation::PerWorker);
        $registry->gaugeCallback('process.memory.usage', 'Resident memory of this process.', static fn(): int => self::rssBytes(), unit: 'By');

        $observer = $system->spawnSystemActor(Props::fromBehavior(Behavior::receive(function (mixed $event): null {
            $this->observe($event);

            return null;
        }))->withKind('admin-view'), self::OBSERVER);
        foreach ([ActorStarted::class, ActorStopped::class, ActorRestarted::class, DeadLetter::class] as $class) {
            $system->eventStream->subscribe($observer, $class);
        }
    }

    /**
     * Shows a connection pool on the dashboard; $stats is read about once a second.
     *
     * @param \Closure(): array{open: int, inUse: int, waiting: int, max: int} $stats
     */
    public function addPool(string $name, string $kind, \Closure $stats): void
    {
        if (!isset($this->pools[$name]) && \count($this->pools) >= self::MAX_POOLS) {
            throw new \LengthException(\sprintf('At most %d pools are shown; %s would be one more.', self::MAX_POOLS, $name));
        }
        $this->pools[$name] = [$kind, $stats];
    }

    public function workers(): array
    {
        return [[
            'id' => $this->worker,
            'pid' => getmypid() ?: 0,
            'up' => !$this->system->isTerminated(),
            'cpuSeconds' => round(self::cpuSeconds(), 3),
            'rssBytes' => self::rssBytes(),
            'requests' => $this->requests === null ? null : ($this->requests)(),
            'restarts' => 0,
            'startedAt' => round($this->startedAt, 3),
        ]];
    }

    public function actors(string $filter, int $limit): array
    {
        $nodes = [];
        $matched = 0;
        $worker = $this->worker;
        $visited = $this->system->inspect(static function (string $path, string $kind, int $mailbox, int $processed) use ($filter, $limit, $worker, &$nodes, &$matched): void {
            if ($filter !== '' && !str_contains($path, $filter)) {
                return;
            }
            ++$matched;
            if ($matched <= $limit) {
                $nodes[] = ['path' => $path, 'worker' => $worker, 'kind' => $kind, 'mailbox' => $mailbox, 'processed' => $processed];
            }
        }, $this->maxActors);

        return ['nodes' => $nodes, 'total' => $filter === '' ? max($visited, $this->live['user'] + $this->live['system']) : $matched];
    }

    /**
     * The DEEPEST deepest mailboxes (a non-empty one only), as the deepest per kind.
     *
     * @return array<string, int>
     */
    public function deepestMailboxes(): array
    {
        $depths = [];
        $kinds = [];
        $this->system->inspect(static function (string $path, string $kind, int $mailbox) use (&$depths, &$kinds): void {
            if ($mailbox > 0) {
                $depths[] = $mailbox;
                $kinds[] = $kind;
            }
        }, $this->maxActors);
        arsort($depths);
        $deepest = [];
        foreach (\array_slice($depths, 0, self::DEEPEST, true) as $i => $depth) {
            $deepest[$kinds[$i]] = max($deepest[$kinds[$i]] ?? 0, $depth);
        }

        return $deepest;
    }

    public function deadLetters(int $limit): array
    {
        return $limit >= \count($this->deadLetters) ? $this->deadLetters : \array_slice($this->deadLetters, -$limit);
    }

    public function pools(): array
    {
        $rows = [];
        foreach ($this->pools as $name => [$kind, $stats]) {
            try {
                $rows[] = ['name' => (string) $name, 'worker' => $this->worker, 'kind' => $kind] + $stats();
            } catch (\Throwable $e) {
                $this->system->logger->warning('Reading the stats of pool {pool} for the admin view failed: {error}', ['pool' => $name, 'error' => $e->getMessage()]);
            }
        }
        // The PgPools and RedisPools of this process, found in the PoolDirectory (those still alive).
        foreach (PoolDirectory::all() as $instruments) {
            $figures = $instruments->figures();
            if ($figures['pools'] > 0 && !isset($this->pools[$instruments->name]) && \count($rows) < self::MAX_POOLS) {
                $rows[] = ['name' => $instruments->name, 'worker' => $this->worker, 'kind' => $instruments->kind, 'open' => $figures['open'], 'inUse' => $figures['used'], 'waiting' => $figures['pending'], 'max' => $figures['max']];
            }
        }

        return $rows;
    }

    public function cluster(): ?array
    {
        return null;
    }

    private function observe(mixed $event): void
    {
        if ($event instanceof ActorStarted) {
            $path = $event->actor->path();
            $scope = str_starts_with($path, '/user/') ? 'user' : 'system';
            $this->started[$scope]->inc();
            ++$this->live[$scope];
        } elseif ($event instanceof ActorStopped) {
            $path = $event->actor->path();
            $scope = str_starts_with($path, '/user/') ? 'user' : 'system';
            $this->stopped[$scope]->inc();
            $this->live[$scope] = max(0, $this->live[$scope] - 1);
        } elseif ($event instanceof ActorRestarted) {
            $this->restarted[str_starts_with($event->actor->path(), '/user/') ? 'user' : 'system']->inc();
        } elseif ($event instanceof DeadLetter) {
            $this->deadLetters[] = [
                'seq' => ++$this->deadLetterSeq,
                'at' => round(microtime(true), 3),
                'worker' => $this->worker,
                'recipient' => $event->recipient,
                'reason' => $event->reason->value,
                'message' => get_debug_type($event->message),
                'sender' => $event->sender?->path() ?? '',
            ];
            if (\count($this->deadLetters) > $this->keepDeadLetters) {
                array_shift($this->deadLetters);
            }
        }
    }

    /**
     * @param array<string, int|float> $byKind
     *
     * @return list<array{list<string>, int|float}>
     */
    private static function rows(array $byKind): array
    {
        $rows = [];
        foreach ($byKind as $kind => $value) {
            $rows[] = [[(string) $kind], $value];
        }

        return $rows;
    }

    private static function cpuSeconds(): float
    {
        $usage = getrusage();
        $field = static fn(string $key): int => \is_int($usage[$key] ?? null) ? $usage[$key] : 0;

        return $field('ru_utime.tv_sec') + $field('ru_utime.tv_usec') / 1e6 + $field('ru_stime.tv_sec') + $field('ru_stime.tv_usec') / 1e6;
    }

    private static function rssBytes(): int
    {
        $statm = @file_get_contents('/proc/self/statm');
        if (\is_string($statm)) {
            $fields = explode(' ', $statm);
            if (isset($fields[1]) && ctype_digit($fields[1])) {
                return (int) $fields[1] * 4096;
            }
        }

        return memory_get_usage(true);
    }
}
