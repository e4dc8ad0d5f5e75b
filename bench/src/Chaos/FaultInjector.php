<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

use Nexus\Bench\Db\HttpResponseReader;
use Nexus\Bench\Db\RunningPostgres;
use Nexus\Bench\ProcessTree;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Loop;

/**
 * Injects the faults of the campaign into the server under test and the servers it uses, each
 * on the loop without blocking the load clients, and writes down what it did and what it saw
 * (which worker it killed, how long a restart took, when the server closed a slow client).
 */
final class FaultInjector
{
    /** @var list<array{at: float, fault: string, detail: string}> */
    private array $events = [];
    /** @var array<string, int> */
    private array $counts = [];
    /** @var array<int, Connection> connections the faults opened, closed by cleanup() */
    private array $connections = [];
    /** @var list<int> timers the faults started, cancelled by cleanup() */
    private array $timers = [];
    private int $restarting = 0;
    private readonly float $startedAt;
    private int $slowClosedByServer = 0;
    private int $slowOpened = 0;
    private float $slowOpenedAt = 0.0;
    private bool $cleaningUp = false;

    /**
     * @param \Closure(string): void $progress
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly int $masterPid,
        private readonly string $address,
        private readonly ?RunningPostgres $postgres,
        private readonly ?RunningRedis $redis,
        private readonly \Random\Randomizer $random,
        private readonly \Closure $progress,
    ) {
        $this->startedAt = $loop->now();
    }

    /**
     * @return list<FaultKind> the faults this set-up can inject
     */
    public function available(): array
    {
        return array_values(array_filter(FaultKind::cases(), fn(FaultKind $kind): bool => match ($kind) {
            FaultKind::PostgresRestart => $this->postgres !== null,
            FaultKind::RedisRestart => $this->redis !== null,
            default => true,
        }));
    }

    public function inject(FaultKind $kind): void
    {
        $this->counts[$kind->value] = ($this->counts[$kind->value] ?? 0) + 1;
        match ($kind) {
            FaultKind::KillWorker => $this->killWorker(),
            FaultKind::ReloadStorm => $this->reloadStorm(),
            FaultKind::Slowloris => $this->slowloris(),
            FaultKind::NonReaders => $this->nonReaders(),
            FaultKind::Flood => $this->flood(),
            FaultKind::PostgresRestart => $this->restart($kind, 'PostgreSQL', $this->postgres),
            FaultKind::RedisRestart => $this->restart($kind, 'Redis', $this->redis),
        };
    }

    /**
     * Whether a database restart is still under way.
     */
    public function busy(): bool
    {
        return $this->restarting > 0;
    }

    /**
     * Whether slowloris connections are still open that the server should close by itself (its
     * header timeout) within $grace seconds of their opening.
     */
    public function slowlorisPending(float $grace): bool
    {
        return $this->slowOpened > $this->slowClosedByServer && $this->loop->now() - $this->slowOpenedAt < $grace;
    }

    /**
     * Closes every connection the faults opened and stops their timers.
     */
    public function cleanup(): void
    {
        $this->cleaningUp = true;
        foreach ($this->timers as $timer) {
            $this->loop->cancel($timer);
        }
        $this->timers = [];
        foreach ($this->connections as $connection) {
            $connection->close();
        }
        $this->connections = [];
        if ($this->slowOpened > 0) {
            $this->record(FaultKind::Slowloris, "{$this->slowClosedByServer} of {$this->slowOpened} slowloris connections were closed by the server (its header timeout)");
        }
    }

    /**
     * @return array<string, int> injections by fault
     */
    public function counts(): array
    {
        return $this->counts;
    }

    /**
     * @return list<array{at: float, fault: string, detail: string}>
     */
    public function events(): array
    {
        return $this->events;
    }

    private function killWorker(): void
    {
        $workers = ProcessTree::children($this->masterPid);
        if ($workers === []) {
            $this->record(FaultKind::KillWorker, 'no worker running to kill');

            return;
        }
        $pid = $workers[$this->random->getInt(0, \count($workers) - 1)];
        @posix_kill($pid, \SIGKILL);
        $this->record(FaultKind::KillWorker, "SIGKILL to worker pid {$pid}");
    }

    private function reloadStorm(): void
    {
        for ($i = 0; $i < 3; ++$i) {
            $this->timers[] = $this->loop->delay($i * 0.3, function () use ($i): void {
                @posix_kill($this->masterPid, \SIGHUP);
                $this->record(FaultKind::ReloadStorm, 'SIGHUP ' . ($i + 1) . ' of 3 to the master');
            });
        }
    }

    private function slowloris(): void
    {
        $this->record(FaultKind::Slowloris, 'opening 20 connections that send a header line a second');
        $this->slowOpenedAt = $this->loop->now();
        for ($i = 0; $i < 20; ++$i) {
            $this->open(function (Connection $connection): void {
                ++$this->slowOpened;
                $connection->write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
                $line = 0;
                $timer = $this->loop->repeat(1.0, static function () use ($connection, &$line): void {
                    if (!$connection->isClosed()) {
                        $connection->write('X-Slow-' . ++$line . ": 1\r\n");
                    }
                });
                $this->timers[] = $timer;
                $connection->onData(static function (): void {});
                $connection->onClose(function () use ($timer): void {
                    $this->loop->cancel($timer);
                    if (!$this->cleaningUp) {
                        ++$this->slowClosedByServer;
                    }
                });
            });
        }
    }

    private function nonReaders(): void
    {
        $this->record(FaultKind::NonReaders, 'opening 4 connections that pipeline 64 GET /big each and never read');
        for ($i = 0; $i < 4; ++$i) {
            $this->open(static function (Connection $connection): void {
                $connection->write(str_repeat("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 64));
            });
        }
    }

    private function flood(): void
    {
        for ($i = 0; $i < 2; ++$i) {
            $this->open(function (Connection $connection): void {
                $started = $this->loop->now();
                $reader = new HttpResponseReader();
                $connection->onData(function (string $bytes) use ($reader, $connection, $started): void {
                    foreach ($reader->feed($bytes) as $response) {
                        $this->record(FaultKind::Flood, \sprintf('flood answered %d after %.1f s: %s', $response->status, $this->loop->now() - $started, substr($response->body, 0, 80)));
                        $connection->close();
                    }
                });
                $connection->write("POST /flood/20000 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
            });
        }
        $this->record(FaultKind::Flood, 'two POST /flood/20000 sent');
    }

    private function restart(FaultKind $kind, string $name, RunningPostgres|RunningRedis|null $server): void
    {
        if ($server === null) {
            return;
        }
        ++$this->restarting;
        $began = $this->loop->now();
        $server->interrupt();
        $this->record($kind, "{$name} asked to shut down");
        $stage = 'stopping';
        $timer = null;
        $timer = $this->loop->repeat(0.05, function () use ($kind, $server, $name, $began, &$stage, &$timer): void {
            if ($stage === 'stopping' && !$server->running()) {
                $stage = 'starting';
                $server->relaunch();
                $this->record($kind, \sprintf('%s down after %.2f s; starting it again', $name, $this->loop->now() - $began));
            } elseif ($stage === 'starting' && $server->ready()) {
                \assert(\is_int($timer));
                $this->loop->cancel($timer);
                --$this->restarting;
                $this->record($kind, \sprintf('%s back after %.2f s', $name, $this->loop->now() - $began));
            }
        });
    }

    /**
     * @param \Closure(Connection): void $then
     */
    private function open(\Closure $then): void
    {
        Connector::connect($this->loop, $this->address, 2.0)->onSettle(function (?\Throwable $error, mixed $connection) use ($then): void {
            if (!$connection instanceof Connection) {
                return;
            }
            $this->connections[spl_object_id($connection)] = $connection;
            $then($connection);
        });
    }

    private function record(FaultKind $kind, string $detail): void
    {
        $at = $this->loop->now() - $this->startedAt;
        $this->events[] = ['at' => round($at, 2), 'fault' => $kind->value, 'detail' => $detail];
        ($this->progress)(\sprintf('  [%6.1f s] %s: %s', $at, $kind->value, $detail));
    }
}
