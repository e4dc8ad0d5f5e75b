<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

use Nexus\Bench\ProcessTree;

/**
 * A server under test: the processes that make it up (started in order, stopped in reverse) and
 * the loopback port it answers on.
 */
final class RunningServer
{
    /**
     * @param list<ManagedProcess> $processes
     */
    public function __construct(
        public readonly string $name,
        public readonly int $port,
        private array $processes,
    ) {}

    /**
     * @return list<int>
     */
    public function pids(): array
    {
        return array_map(static fn(ManagedProcess $p): int => $p->pid(), $this->processes);
    }

    public function cpuSeconds(): ?float
    {
        return ProcessTree::cpuSeconds($this->pids());
    }

    public function crashed(): ?ManagedProcess
    {
        foreach ($this->processes as $process) {
            if (!$process->running()) {
                return $process;
            }
        }

        return null;
    }

    public function stop(): void
    {
        foreach (array_reverse($this->processes) as $process) {
            $process->stop();
        }
        $this->processes = [];
    }
}
