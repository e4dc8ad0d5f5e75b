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
    public readonly string $url;
    /** The admin listener (http://127.0.0.1:PORT), where the node announced one. */
    public readonly ?string $admin;
    public readonly int $pid;

    /**
     * @param list<string> $options more options for nexus serve
     */
    public function __construct(
        public readonly string $name,
        string $etcd,
        string $dataDir,
        public readonly string $log,
        int $workers = 2,
        int $leaseTtl = 3,
        array $options = [],
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
        stream_set_blocking($pipes[1], false);
        $output = '';
        $deadline = microtime(true) + 30.0;
        while (microtime(true) < $deadline && proc_get_status($process)['running']) {
            $output .= (string) fread($pipes[1], 8192);
            if (preg_match('#on (http://127\.0\.0\.1:\d+)#', $output, $match) === 1) {
                if (\in_array('--admin=off', $options, true)) {
                    $this->url = $match[1];
                    $this->admin = null;

                    return;
                }
                if (preg_match('#^Admin listener on (http://\S+):#m', $output, $adminMatch) === 1) {
                    $this->url = $match[1];
                    $this->admin = $adminMatch[1];

                    return;
                }
            }
            $read = [$pipes[1]];
            $write = $except = null;
            @stream_select($read, $write, $except, 0, 50_000); // waits for output, up to the deadline
        }
        $this->kill();

        throw new \RuntimeException("Node {$name} did not say where it serves within 30 s. Output: {$output}\nLog:\n" . $this->logText());
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

    private function waitUntilGone(float $timeout): bool
    {
        $deadline = microtime(true) + $timeout;
        while ($this->isRunning() && microtime(true) < $deadline) {
            usleep(10_000); // polls the process state until it has exited or the deadline passes
        }
        $gone = !$this->isRunning();
        if ($gone && $this->process !== null) {
            proc_close($this->process);
            $this->process = null;
        }

        return $gone;
    }
}
