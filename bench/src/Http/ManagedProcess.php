<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * A process the benchmark started (no shell in between, so the pid is the program's own), with
 * its output in a log file. stop() sends SIGTERM, then SIGKILL after a grace period.
 */
final class ManagedProcess
{
    /** @var resource|null */
    private $process;
    private readonly int $pid;
    private ?int $exitCode = null;

    /**
     * @param list<string> $command
     */
    public function __construct(public readonly string $name, array $command, public readonly string $logFile)
    {
        $log = ['file', $logFile, 'a'];
        $process = @proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => $log, 2 => $log], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException("Could not start {$name}: " . implode(' ', $command));
        }
        $this->process = $process;
        $this->pid = proc_get_status($process)['pid'];
    }

    public function pid(): int
    {
        return $this->pid;
    }

    public function running(): bool
    {
        if ($this->process === null) {
            return false;
        }
        $status = proc_get_status($this->process);
        if (!$status['running'] && $this->exitCode === null) {
            // proc_get_status() reports the exit code only once, right after the process ended.
            $this->exitCode = $status['exitcode'];
        }

        return $status['running'];
    }

    /**
     * The exit code once running() has seen the process end (-1 if it was killed by a signal), else null.
     */
    public function exitCode(): ?int
    {
        return $this->exitCode;
    }

    /**
     * The last lines of its log, for error messages.
     */
    public function logTail(int $lines = 15): string
    {
        $text = @file_get_contents($this->logFile);
        if (!\is_string($text) || trim($text) === '') {
            return '(no output)';
        }

        return implode("\n", \array_slice(explode("\n", rtrim($text)), -$lines));
    }

    /**
     * Terminates the process (SIGTERM, then SIGKILL after $graceSeconds) and reaps it.
     */
    public function stop(float $graceSeconds = 5.0): void
    {
        $process = $this->process;
        if ($process === null) {
            return;
        }
        if ($this->running()) {
            @proc_terminate($process, 15);
            $this->waitForExit($graceSeconds);
            if ($this->running()) {
                @proc_terminate($process, 9);
                $this->waitForExit(2.0);
            }
        }
        proc_close($process);
        $this->process = null;
    }

    private function waitForExit(float $seconds): void
    {
        $deadline = microtime(true) + $seconds;
        while ($this->running() && microtime(true) < $deadline) {
            usleep(20_000);
        }
    }
}
