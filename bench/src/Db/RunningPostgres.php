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

    /**
     * @param list<string> $command how the server was started, for relaunch()
     */
    public function __construct(
        private ManagedProcess $process,
        public readonly int $port,
        private readonly string $directory,
        private readonly array $command = [],
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

    /**
     * Asks for a fast shutdown (SIGINT) and returns at once; the data stays for relaunch().
     */
    public function interrupt(): void
    {
        if ($this->process->running()) {
            @posix_kill($this->process->pid(), \SIGINT);
        }
    }

    /**
     * Starts the server again on the same data directory and port, once it is down; returns at
     * once (ready() says when it accepts connections).
     */
    public function relaunch(): void
    {
        if ($this->stopped || $this->process->running() || $this->command === []) {
            throw new DbBenchException('PostgreSQL can be relaunched only after it stopped by itself (interrupt()), and only if it was started by PostgresLauncher.');
        }
        $this->process->stop();
        $this->process = new ManagedProcess('postgres', $this->command, $this->process->logFile);
    }

    /**
     * Whether it accepts connections now.
     */
    public function ready(): bool
    {
        try {
            $this->pdo()->query('SELECT 1');

            return true;
        } catch (\PDOException) {
            return false;
        }
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
