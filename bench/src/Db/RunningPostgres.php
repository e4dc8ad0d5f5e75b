<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Bench\Files;
use Nexus\Bench\Http\ManagedProcess;

/**
 * A PostgreSQL server PostgresLauncher started: database `postgres`, user `postgres`, trust
 * authentication on 127.0.0.1:$port. stop() shuts it down and deletes its directory.
 */
final class RunningPostgres
{
    private bool $stopped = false;

    public function __construct(
        private readonly ManagedProcess $process,
        public readonly int $port,
        private readonly string $directory,
    ) {}

    public function dsn(string $database = 'postgres', ?int $port = null): string
    {
        return sprintf('host=127.0.0.1 port=%d dbname=%s user=postgres', $port ?? $this->port, $database);
    }

    public function pdo(string $database = 'postgres'): \PDO
    {
        return new \PDO("pgsql:host=127.0.0.1;port={$this->port};dbname={$database};user=postgres", null, null, [
            \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
            \PDO::ATTR_TIMEOUT => 2,
        ]);
    }

    public function running(): bool
    {
        return !$this->stopped && $this->process->running();
    }

    public function logTail(): string
    {
        return $this->process->logTail();
    }

    public function stop(): void
    {
        if ($this->stopped) {
            return;
        }
        $this->stopped = true;
        if ($this->process->running()) {
            // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to disconnect.
            @posix_kill($this->process->pid(), \SIGINT);
            $this->waitForExit(10.0);
        }
        $this->process->stop();
        Files::removeTree($this->directory);
    }

    private function waitForExit(float $seconds): void
    {
        $deadline = microtime(true) + $seconds;
        while ($this->process->running() && microtime(true) < $deadline) {
            usleep(50_000);
        }
    }
}
