<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

/**
 * One node of a cluster as a user runs it: `bin/nexus serve` with --cluster, a real master and
 * real worker processes, its log in a file. kill() ends the whole node at once (the master and
 * every worker, SIGKILL), as a crash of its machine would; terminate() stops it gracefully.
 */
final class NodeProcess
{
    private const ROOT = __DIR__ . '/../../..';

    /** @var resource|null */
    private mixed $process = null;
    /** Where it serves HTTP (set once it has said so). */
    public string $url = '';
    /** The admin listener (http://127.0.0.1:PORT), where the node announced one. */
    public ?string $admin = null;
    public readonly int $pid;
    /** @var resource */
    private mixed $stdout;
    private string $output = '';
    private bool $adminOff = false;

    /**
     * @param list<string> $options          more options for nexus serve
     * @param bool         $waitUntilServing false: return at once (call waitUntilServing() later)
     */
    public function __construct(
        public readonly string $name,
        string $etcd,
        string $dataDir,
        public readonly string $log,
        int $workers = 2,
        int $leaseTtl = 3,
        array $options = [],
        bool $waitUntilServing = true,
    ) {
        $command = [
            \PHP_BINARY, 'bin/nexus', 'serve', 'tests/Integration/Cluster/Fixture/cluster-app.php',
            '--port=0', "--workers={$workers}", '--no-jit', "--data-dir={$dataDir}",
            "--cluster={$etcd}", "--node={$name}", "--lease-ttl={$leaseTtl}", ...$options,
        ];
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', $log, 'a']], $pipes, self::ROOT);
        if (!\is_resource($process)) {
            throw new \RuntimeException("Could not start node {$name}.");
        }
        $this->process = $process;
        $this->pid = proc_get_status($process)['pid'];
        $this->stdout = $pipes[1];
        stream_set_blocking($this->stdout, false);
        $this->adminOff = \in_array('--admin=off', $options, true);
        if ($waitUntilServing) {
            $this->waitUntilServing(30.0);
        }
    }

    /**
     * Waits until the node says where it serves (it has joined); kills it and throws after $timeout.
     */
    public function waitUntilServing(float $timeout): void
    {
        if ($this->waitForOutput('#^Nexus is serving .*? on (http://127\.0\.0\.1:\d+)#m', $timeout, $match) && ($this->adminOff || $this->waitForOutput('#^Admin listener on (http://\S+):#m', 0.0, $adminMatch))) {
            $this->url = $match[1];
            $this->admin = $this->adminOff ? null : ($adminMatch[1] ?? null);

            return;
        }
        $this->kill();

        throw new \RuntimeException("Node {$this->name} did not say where it serves within {$timeout} s. Output: {$this->output}\nLog:\n" . $this->logText());
    }

    /**
     * The admin listener's address as soon as the node announces it (before it has joined).
     */
    public function adminAddress(float $timeout): string
    {
        if ($this->waitForOutput('#^Admin listener on (http://\S+):#m', $timeout, $match)) {
            return $match[1];
        }

        throw new \RuntimeException("Node {$this->name} did not announce its admin listener within {$timeout} s. Output: {$this->output}\nLog:\n" . $this->logText());
    }

    /**
     * What the node wrote to its standard output so far.
     */
    public function output(): string
    {
        if (\is_resource($this->stdout)) {
            $this->output .= (string) @fread($this->stdout, 65536);
        }

        return $this->output;
    }

    /**
     * Reads its output until $pattern matches it, the process ends or $timeout passes.
     *
     * @param array<int|string, string> $match
     *
     * @param-out array<int|string, string> $match
     */
    private function waitForOutput(string $pattern, float $timeout, ?array &$match): bool
    {
        $match = [];
        $deadline = microtime(true) + $timeout;
        do {
            if (preg_match($pattern, $this->output(), $match) === 1) {
                return true;
            }
            if (!$this->isRunning()) {
                return preg_match($pattern, $this->output(), $match) === 1;
            }
            $read = [$this->stdout];
            $write = $except = null;
            @stream_select($read, $write, $except, 0, 50_000); // waits for output, up to the deadline
        } while (microtime(true) < $deadline);

        return false;
    }

    /**
     * @phpstan-impure
     */
    public function isRunning(): bool
    {
        return $this->process !== null && proc_get_status($this->process)['running'];
    }

    /**
     * The worker processes of this node now.
     *
     * @return list<int>
     */
    public function workerPids(): array
    {
        $children = @file_get_contents("/proc/{$this->pid}/task/{$this->pid}/children");

        return \is_string($children) ? array_map('intval', array_values(array_filter(explode(' ', trim($children)), static fn(string $p): bool => $p !== ''))) : [];
    }

    /**
     * kill -9 of the whole node: the master and its workers at once.
     */
    public function kill(): void
    {
        $pids = [$this->pid, ...$this->workerPids()];
        foreach ($pids as $pid) {
            @posix_kill($pid, \SIGKILL);
        }
        $this->waitUntilGone(10.0);
    }

    /**
     * SIGTERM: the node hands its entities off, leaves and stops.
     */
    public function terminate(float $timeout = 40.0): void
    {
        if ($this->isRunning()) {
            @posix_kill($this->pid, \SIGTERM);
        }
        if (!$this->waitUntilGone($timeout)) {
            $this->kill();
        }
    }

    public function logText(): string
    {
        return (string) @file_get_contents($this->log);
    }

    /**
     * Waits until the process has ended (reaped), up to $timeout.
     */
    public function waitUntilGone(float $timeout): bool
    {
        $deadline = microtime(true) + $timeout;
        while ($this->isRunning() && microtime(true) < $deadline) {
            usleep(10_000); // polls the process state until it has exited or the deadline passes
        }
        $gone = !$this->isRunning();
        if ($gone && $this->process !== null) {
            $this->output();
            proc_close($this->process);
            $this->process = null;
        }

        return $gone;
    }
}
