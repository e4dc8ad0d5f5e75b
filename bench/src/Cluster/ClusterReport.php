<?php

declare(strict_types=1);

namespace Nexus\Bench\Cluster;

use Nexus\Bench\ChartRow;
use Nexus\Bench\JsonFields;
use Nexus\Bench\ReportFiles;
use Nexus\Bench\SvgBarChart;

/**
 * The results of `make bench-cluster` as a table, the bench:cluster sections of
 * docs/performance.md and docs/cluster.md, and a chart.
 */
final class ClusterReport
{
    private const START = '<!-- bench:cluster:start -->';
    private const END = '<!-- bench:cluster:end -->';

    /**
     * @param array<string, mixed> $results as bench/cluster/run.php collects them
     */
    public function __construct(private readonly array $results) {}

    public function table(): string
    {
        $lines = ['| measure | across nodes (TCP) | same run, inside one node | ratio | target | reference | met |', '|---|---|---|---|---|---|---|'];
        foreach ($this->rows() as [$name, $value, $baseline, $ratio, $target, $reference, $met]) {
            $lines[] = "| {$name} | {$value} | {$baseline} | {$ratio} | {$target} | {$reference} | " . ($met === null ? '—' : ($met ? 'yes' : 'no')) . ' |';
        }

        return implode("\n", $lines) . "\n";
    }

    /**
     * @return string|null what went wrong, or null when both sections and the chart were written
     */
    public function writeInto(string $performanceDoc, string $clusterDoc, string $svgPath, string $command): ?string
    {
        $section = \sprintf(
            "Measured %s with `%s` (PHP %s, %s, %d cores shared by every node, load average %.1f as it started; real etcd, nodes on TCP loopback).\n\n%s\n%s\n\n![cluster benchmarks](img/cluster-bench.svg)\n\n",
            JsonFields::string($this->results, 'date'),
            $command,
            JsonFields::string($this->results, 'php'),
            ($this->results['jit'] ?? false) === true ? 'tracing JIT' : 'no JIT',
            JsonFields::int($this->results, 'cores'),
            JsonFields::float($this->results, 'load_before'),
            $this->table(),
            $this->note(),
        );
        $update = static fn(string $text): string => ReportFiles::replaceMarked($text, self::START, self::END, $section, '## Cluster (`make bench-cluster`)');
        $error = ReportFiles::update($performanceDoc, $svgPath, $update, $this->chart());
        if ($error !== null) {
            return $error;
        }
        $text = @file_get_contents($clusterDoc);
        if (!\is_string($text)) {
            return "Cannot read {$clusterDoc}.";
        }
        try {
            $text = ReportFiles::replaceMarked($text, self::START, self::END, $section, '## Benchmark (`make bench-cluster`)');
        } catch (\UnexpectedValueException $e) {
            return "{$clusterDoc}: {$e->getMessage()}";
        }

        return @file_put_contents($clusterDoc, $text) === false ? "Cannot write {$clusterDoc}." : null;
    }

    /**
     * @return list<array{string, string, string, string, string, string, bool|null}>
     */
    private function rows(): array
    {
        $m = JsonFields::section($this->results, 'messaging');
        $rows = [];
        $node = JsonFields::float($m, 'node_msgs_per_s');
        $worker = JsonFields::float($m, 'worker_msgs_per_s');
        $rows[] = [
            'tell, one pair of slots',
            self::rate($node) . ' msgs/s',
            \sprintf('%s msgs/s across workers, %s msgs/s on one worker', self::rate($worker), self::rate(JsonFields::float($m, 'local_msgs_per_s'))),
            self::ratio($node, $worker),
            '≥ 1M msgs/s', '74-78K msgs/s per core', $node >= 1e6,
        ];
        $p50 = JsonFields::float($m, 'node_ask_p50_us');
        $rows[] = [
            'ask round trip p50',
            \sprintf('%.1f µs', $p50),
            \sprintf('%.1f µs across workers, %.1f µs on one worker', JsonFields::float($m, 'worker_ask_p50_us'), JsonFields::float($m, 'local_ask_p50_us')),
            self::ratio($p50, JsonFields::float($m, 'worker_ask_p50_us')),
            '≤ 30 µs', '34.9 µs', $p50 > 0 && $p50 <= 30.0,
        ];
        $p99 = JsonFields::float($m, 'node_ask_p99_us');
        $rows[] = [
            'ask round trip p99',
            \sprintf('%.1f µs', $p99),
            \sprintf('%.1f µs across workers, %.1f µs on one worker', JsonFields::float($m, 'worker_ask_p99_us'), JsonFields::float($m, 'local_ask_p99_us')),
            self::ratio($p99, JsonFields::float($m, 'worker_ask_p99_us')),
            '', '', null,
        ];
        $rows[] = [
            'fan-out: 5,000 messages to each of the 3 slots',
            \sprintf('%.1f ms (%s msgs/s)', JsonFields::float($m, 'fanout_ms'), self::rate(JsonFields::float($m, 'fanout_msgs_per_s'))),
            '', '', '', '', null,
        ];
        $nodes = JsonFields::float(JsonFields::section($this->results, 'world_nodes_2x1'), 'orders_per_s');
        $cluster = JsonFields::float(JsonFields::section($this->results, 'world_node_1x2'), 'orders_per_s');
        $pool = JsonFields::float(JsonFields::section($this->results, 'world_pool_2'), 'orders_per_s');
        $rows[] = [
            'world: orders/s, 2 nodes of 1 worker (best of the runs)',
            self::rate($nodes) . ' orders/s',
            \sprintf('%s orders/s on 1 node of 2 workers in a cluster, %s on a pool of 2 workers', self::rate($cluster), self::rate($pool)),
            self::ratio($nodes, $pool) . ' of the pool',
            '', '', null,
        ];

        $moves = JsonFields::section($this->results, 'moves');
        if ($moves !== []) {
            $rows[] = [
                \sprintf('a node joins: %s active entities answer again', number_format(JsonFields::float($moves, 'entities'))),
                \sprintf('%.2f s', JsonFields::float($moves, 'join_seconds')),
                \sprintf('%s of them moved to the new node', number_format(JsonFields::float($moves, 'moved_on_join'))),
                '', '', '', null,
            ];
            $kill = JsonFields::float($moves, 'kill_seconds');
            $ttl = JsonFields::float($moves, 'lease_ttl_s');
            $rows[] = [
                'a node is killed (kill -9): its entities answer from their new owners',
                \sprintf('%.2f s after the kill', $kill),
                \sprintf('%s entities lived on it; lease TTL %.0f s', number_format(JsonFields::float($moves, 'on_killed_node')), $ttl),
                '',
                \sprintf('≤ TTL + 2 s = %.0f s', $ttl + 2),
                '', $kill > 0 && $kill <= $ttl + 2,
            ];
        }

        return $rows;
    }

    private function note(): string
    {
        $m = JsonFields::section($this->results, 'messaging');

        return \sprintf(
            'Messaging: node A has 2 workers and node B 1; A\'s worker 0 sends to an actor on itself, on A\'s other worker (Unix socket) and on B\'s worker (TCP), %s tells and %s asks each, the asks interleaved in rounds. '
            . 'World: drivers on every slot send orders to 256 order shards placed over the slots (an entity kind), so about half of them cross (to the other node, or the other worker); every order is counted before the time stops. '
            . 'Moves: nodes A and B of 1 worker with active (non-persistent) entities; the join is timed from the view with the new node until every entity has answered an ask (those that moved started on the new node once every member had applied the view); the kill from the SIGKILL of node B\'s processes until every entity that lived on B has answered from its new owner (asks retried every 50 ms, each with a 0.5 s timeout; durable state across such a move is what ClusterNodesTest checks). '
            . 'Every process shares the same two cores: a cross-node figure here is a lower bound of what two machines give. Ratio: across nodes / across the workers of one node.',
            number_format(JsonFields::float($m, 'messages')),
            number_format(JsonFields::float($m, 'asks')),
        );
    }

    private function chart(): string
    {
        $m = JsonFields::section($this->results, 'messaging');
        $rows = [
            new ChartRow('tell, one pair (M msgs/s)', 'higher is better', [JsonFields::float($m, 'node_msgs_per_s') / 1e6, JsonFields::float($m, 'worker_msgs_per_s') / 1e6, JsonFields::float($m, 'local_msgs_per_s') / 1e6], [
                self::rate(JsonFields::float($m, 'node_msgs_per_s')), self::rate(JsonFields::float($m, 'worker_msgs_per_s')), self::rate(JsonFields::float($m, 'local_msgs_per_s')),
            ], 1.0, 'target 1M', '', JsonFields::float($m, 'node_msgs_per_s') >= 1e6),
            new ChartRow('ask p50 (µs)', 'lower is better', [JsonFields::float($m, 'node_ask_p50_us'), JsonFields::float($m, 'worker_ask_p50_us'), JsonFields::float($m, 'local_ask_p50_us')], [
                \sprintf('%.1f', JsonFields::float($m, 'node_ask_p50_us')), \sprintf('%.1f', JsonFields::float($m, 'worker_ask_p50_us')), \sprintf('%.1f', JsonFields::float($m, 'local_ask_p50_us')),
            ], 30.0, 'target 30 µs', '', JsonFields::float($m, 'node_ask_p50_us') > 0 && JsonFields::float($m, 'node_ask_p50_us') <= 30.0),
            new ChartRow('ask p99 (µs)', 'lower is better', [JsonFields::float($m, 'node_ask_p99_us'), JsonFields::float($m, 'worker_ask_p99_us'), JsonFields::float($m, 'local_ask_p99_us')], [
                \sprintf('%.1f', JsonFields::float($m, 'node_ask_p99_us')), \sprintf('%.1f', JsonFields::float($m, 'worker_ask_p99_us')), \sprintf('%.1f', JsonFields::float($m, 'local_ask_p99_us')),
            ]),
        ];
        $world = [JsonFields::float(JsonFields::section($this->results, 'world_nodes_2x1'), 'orders_per_s'), JsonFields::float(JsonFields::section($this->results, 'world_node_1x2'), 'orders_per_s'), JsonFields::float(JsonFields::section($this->results, 'world_pool_2'), 'orders_per_s')];
        $rows[] = new ChartRow('world (M orders/s)', '2x1 nodes / 1x2 cluster / pool of 2', array_map(static fn(float $v): float => $v / 1e6, $world), array_map(self::rate(...), $world));

        return (new SvgBarChart('Nexus cluster (make bench-cluster)', ['across nodes', 'across workers', 'one worker'], 'target', 'Bars: measured in one run; world: 2 nodes of 1 worker, 1 node of 2 workers, a pool of 2 workers.'))->render($rows);
    }





    private static function ratio(float $a, float $b): string
    {
        return $b > 0 ? \sprintf('%.2fx', $a / $b) : '—';
    }

    private static function rate(float $value): string
    {
        return match (true) {
            $value >= 1e6 => \sprintf('%.2fM', $value / 1e6),
            $value >= 1e3 => \sprintf('%.0fK', $value / 1e3),
            default => \sprintf('%.0f', $value),
        };
    }
}
