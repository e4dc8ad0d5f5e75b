<?php

declare(strict_types=1);

namespace Nexus\Bench\Cluster;

use Nexus\Tests\Support\EtcdServer;

/**
 * Starts the nodes of one `make bench-cluster` case (bench/cluster/node.php processes), in order,
 * each once the one before is a member (so the first node holds the lowest slots and measures),
 * waits for the first to write its results and stop, then stops the others (SIGTERM, SIGKILL
 * after 20 s). Every wait has a deadline; a case that misses one fails with the nodes' logs.
 */
final class BenchNodes
{
    private const JOIN_TIMEOUT = 30.0;
    private const RUN_TIMEOUT = 600.0;
    private const STOP_TIMEOUT = 20.0;

    private int $cases = 0;

    public function __construct(
        private readonly string $root,
        private readonly string $tempDir,
        private readonly EtcdServer $etcd,
        private readonly bool $jit,
    ) {}

    /**
     * @param 'messaging'|'world' $mode
     * @param list<int>           $layout  workers of each node, the measuring node first
     * @param bool                $cluster false: one plain pool (the layout has one node)
     *
     * @return array<mixed> what the lowest slot measured
     */
    public function run(string $mode, array $layout, bool $cluster, int $messages, int $asks, int $orders): array
    {
        $case = ++$this->cases;
        $prefix = "/bench-{$case}/";
        $resultFile = "{$this->tempDir}/{$mode}-{$case}.json";
        $dataDir = "{$this->tempDir}/data-{$case}";
        @mkdir($dataDir, 0o700, true);
        $slots = array_sum($layout);
        $processes = [];
        $logs = [];
        try {
            foreach ($layout as $i => $workers) {
                $logs[$i] = "{$this->tempDir}/node-{$case}-{$i}.log";
                $arguments = [$mode, "n{$i}", (string) $workers, $cluster ? $this->etcd->endpoint() : '-', $prefix, $dataDir, $resultFile, (string) $slots, (string) $messages, (string) $asks, (string) $orders];
                $processes[$i] = $this->start($arguments, $logs[$i]);
                if ($cluster) {
                    $this->waitUntil(fn(): bool => \count($this->etcd->keys("{$prefix}members/")) >= $i + 1, self::JOIN_TIMEOUT, "node {$i} to join", $processes, $logs);
                }
            }
            $first = $processes[0];
            $this->waitUntil(static fn(): bool => !proc_get_status($first)['running'], self::RUN_TIMEOUT, 'the measuring node to finish', $processes, $logs);
            $result = json_decode((string) @file_get_contents($resultFile), true);
            if (!\is_array($result) || isset($result['error'])) {
                throw new \RuntimeException("The {$mode} case on nodes of " . implode('+', $layout) . ' workers failed: ' . json_encode($result) . "\n" . $this->logs($logs));
            }

            return $result;
        } finally {
            $this->stop($processes);
        }
    }

    /**
     * Entities that move: nodes A and B of one worker, $entities active entities; node C joins,
     * then B is killed (SIGKILL to its master and workers at once), as BenchWorker::moves() asks.
     *
     * @return array<mixed> what node A measured
     */
    public function moves(int $entities): array
    {
        $case = ++$this->cases;
        $prefix = "/bench-{$case}/";
        $resultFile = "{$this->tempDir}/moves-{$case}.json";
        $dataDir = "{$this->tempDir}/data-{$case}";
        @mkdir($dataDir, 0o700, true);
        $processes = [];
        $logs = [];
        try {
            foreach (['A', 'B', 'C'] as $i => $name) {
                if ($name === 'C') {
                    $this->waitUntil(static fn(): bool => is_file("{$resultFile}.join"), self::RUN_TIMEOUT, 'node A to ask for a join', $processes, $logs);
                }
                $logs[$i] = "{$this->tempDir}/node-{$case}-{$name}.log";
                $processes[$i] = $this->start(['moves', "n{$name}", '1', $this->etcd->endpoint(), $prefix, $dataDir, $resultFile, '2', '0', '0', (string) $entities], $logs[$i]);
                $this->waitUntil(fn(): bool => \count($this->etcd->keys("{$prefix}members/")) >= $i + 1, self::JOIN_TIMEOUT, "node {$name} to join", $processes, $logs);
            }
            $this->waitUntil(static fn(): bool => is_file("{$resultFile}.kill"), self::RUN_TIMEOUT, 'node A to ask for the kill', $processes, $logs);
            $master = proc_get_status($processes[1])['pid'];
            $children = @file_get_contents("/proc/{$master}/task/{$master}/children");
            foreach ([$master, ...array_map('intval', preg_split('/\s+/', trim((string) $children), -1, \PREG_SPLIT_NO_EMPTY) ?: [])] as $pid) {
                posix_kill($pid, \SIGKILL);
            }
            file_put_contents("{$resultFile}.killed", \sprintf('%.6f', microtime(true)));
            $first = $processes[0];
            $this->waitUntil(static fn(): bool => !proc_get_status($first)['running'], self::RUN_TIMEOUT, 'node A to finish', [0 => $processes[0], 2 => $processes[2]], $logs);
            $result = json_decode((string) @file_get_contents($resultFile), true);
            if (!\is_array($result) || isset($result['error'])) {
                throw new \RuntimeException('The moves case failed: ' . json_encode($result) . "\n" . $this->logs($logs));
            }

            return $result;
        } finally {
            $this->stop($processes);
        }
    }

    /**
     * @param list<string> $arguments for bench/cluster/node.php
     *
     * @return resource
     */
    private function start(array $arguments, string $log): mixed
    {
        $command = [
            \PHP_BINARY,
            ...($this->jit ? ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M'] : []),
            'bench/cluster/node.php',
            ...$arguments,
        ];
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, $this->root);
        if (!\is_resource($process)) {
            throw new \RuntimeException("Could not start bench/cluster/node.php {$arguments[0]} {$arguments[1]}.");
        }

        return $process;
    }

    /**
     * @param array<int, resource> $processes
     * @param array<int, string>   $logs
     */
    private function waitUntil(\Closure $condition, float $timeout, string $what, array $processes, array $logs): void
    {
        $deadline = microtime(true) + $timeout;
        while (!$condition()) {
            foreach ($processes as $i => $process) {
                if (!proc_get_status($process)['running'] && $i !== 0) {
                    throw new \RuntimeException("Node {$i} exited while waiting for {$what}.\n" . $this->logs($logs));
                }
            }
            if (microtime(true) > $deadline) {
                throw new \RuntimeException("Waited {$timeout} s for {$what}.\n" . $this->logs($logs));
            }
            usleep(20_000);
        }
    }

    /**
     * @param array<int, resource> $processes
     */
    private function stop(array $processes): void
    {
        foreach ($processes as $process) {
            if (proc_get_status($process)['running']) {
                proc_terminate($process, \SIGTERM);
            }
        }
        $deadline = microtime(true) + self::STOP_TIMEOUT;
        foreach ($processes as $process) {
            while (proc_get_status($process)['running'] && microtime(true) < $deadline) {
                usleep(20_000);
            }
            if (proc_get_status($process)['running']) {
                proc_terminate($process, \SIGKILL);
            }
            proc_close($process);
        }
    }

    /**
     * @param array<int, string> $logs
     */
    private function logs(array $logs): string
    {
        $text = '';
        foreach ($logs as $i => $log) {
            $lines = \array_slice(file(is_file($log) ? $log : '/dev/null') ?: [], -20);
            $text .= "--- node {$i} ({$log}):\n" . implode('', $lines);
        }

        return $text;
    }
}
