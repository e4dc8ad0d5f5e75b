<?php

declare(strict_types=1);

namespace Nexus\Bench\WebSocket;

use Nexus\Bench\ChartRow;
use Nexus\Bench\JsonFields;
use Nexus\Bench\ReportFiles;
use Nexus\Bench\SvgBarChart;

/**
 * The results of `make bench-ws` (bench/ws/run.php) as a table, the bench:ws section of
 * docs/performance.md and a chart with Nexus and Workerman side by side.
 */
final class WsReport
{
    private const START = '<!-- bench:ws:start -->';
    private const END = '<!-- bench:ws:end -->';
    /** PHP heap per idle connection at most (the issue's target). */
    private const MEMORY_TARGET = 4096;
    /** Echo latency while the idle connections are open, at most. */
    private const LATENCY_TARGET_MS = 10.0;

    /**
     * @param array<string, mixed> $results as bench/ws/run.php collects them
     */
    public function __construct(private readonly array $results) {}

    public function table(): string
    {
        $lines = ['| measure | Nexus | Workerman | target | met |', '|---|---|---|---|---|'];
        foreach ($this->rows() as $row) {
            $lines[] = "| {$row['name']} | {$row['nexus']} | {$row['workerman']} | {$row['target']} | " . ($row['met'] === null ? '—' : ($row['met'] ? 'yes' : 'no')) . ' |';
        }

        return implode("\n", $lines) . "\n";
    }

    /**
     * @return string|null what went wrong, or null when the section and the chart were written
     */
    public function writeInto(string $docPath, string $svgPath, string $command): ?string
    {
        $settings = JsonFields::section($this->results, 'settings');
        $section = \sprintf(
            "\nMeasured %s with `%s` (PHP %s, tracing JIT for both servers and the clients, %s, %d cores, load average %.1f at the start: other engineers' test suites shared the machine). "
            . "Echo: %d rounds of %d s alternating between the servers, %d connections with one 32-byte text message in flight each; the median, its spread, and the server's CPU time per round trip, which the shared machine disturbs less than the rate. "
            . "Broadcast: %s clients in one room in two client processes, one of them publishing with 16 messages in flight. Idle: %s connections that completed the handshake and send nothing, then 2,000 echo round trips one after the other on one more; then the same with %s idle connections on one Nexus worker.\n\n%s\n%s\n\n![WebSocket benchmarks](img/ws-bench.svg)\n\n",
            JsonFields::string($this->results, 'date'),
            $command,
            JsonFields::string($this->results, 'php'),
            JsonFields::string($this->results, 'cpu'),
            (int) JsonFields::float($this->results, 'cores'),
            JsonFields::float($this->results, 'load'),
            (int) JsonFields::float($settings, 'rounds'),
            (int) JsonFields::float($settings, 'seconds'),
            (int) JsonFields::float($settings, 'connections'),
            number_format(JsonFields::float($settings, 'clients')),
            number_format(JsonFields::float($settings, 'idle')),
            number_format(JsonFields::float($settings, 'many')),
            $this->table(),
            $this->notes(),
        );

        return ReportFiles::update($docPath, $svgPath, static fn(string $text): string => ReportFiles::replaceMarked($text, self::START, self::END, $section, '## WebSocket (`make bench-ws`)'), $this->chart());
    }

    /**
     * @return list<array{name: string, short: string, detail: string, nexus: string, workerman: string, target: string, met: bool|null, values: array{float|null, float|null}, marker: float|null}>
     */
    private function rows(): array
    {
        $settings = JsonFields::section($this->results, 'settings');
        $echo = JsonFields::section($this->results, 'echo');
        $nexusEcho = JsonFields::section($echo, 'nexus');
        $workermanEcho = JsonFields::section($echo, 'workerman');
        $nexusRate = JsonFields::float($nexusEcho, 'median');
        $workermanRate = JsonFields::float($workermanEcho, 'median');
        $ratio = $workermanRate > 0 ? $nexusRate / $workermanRate : 0.0;
        $rows = [];
        $rows[] = [
            'name' => \sprintf('echo round trips/s, %s connections (median)', number_format(JsonFields::float($settings, 'connections'))),
            'short' => 'echo round trips/s',
            'detail' => \sprintf('%s connections, median', number_format(JsonFields::float($settings, 'connections'))),
            'nexus' => \sprintf('%s (%s–%s), %.2fx', self::rate($nexusRate), self::rate(JsonFields::float($nexusEcho, 'min')), self::rate(JsonFields::float($nexusEcho, 'max')), $ratio),
            'workerman' => \sprintf('%s (%s–%s)', self::rate($workermanRate), self::rate(JsonFields::float($workermanEcho, 'min')), self::rate(JsonFields::float($workermanEcho, 'max'))),
            'target' => '≥ 1.0x Workerman',
            'met' => $ratio >= 1.0,
            'values' => [$nexusRate, $workermanRate],
            'marker' => $workermanRate,
        ];
        $nexusCpu = JsonFields::float($nexusEcho, 'cpu_us');
        $workermanCpu = JsonFields::float($workermanEcho, 'cpu_us');
        $rows[] = [
            'name' => 'server CPU per echo round trip (median)',
            'short' => 'server CPU per round trip',
            'detail' => 'echo, median; lower is better',
            'nexus' => \sprintf('%.1f µs', $nexusCpu),
            'workerman' => \sprintf('%.1f µs', $workermanCpu),
            'target' => '',
            'met' => null,
            'values' => [$nexusCpu, $workermanCpu],
            'marker' => null,
        ];
        $broadcast = JsonFields::section($this->results, 'broadcast');
        $nexusBroadcast = JsonFields::section($broadcast, 'nexus');
        $workermanBroadcast = JsonFields::section($broadcast, 'workerman');
        $rows[] = [
            'name' => \sprintf('broadcast deliveries/s, %s clients in one room (median)', number_format(JsonFields::float($settings, 'clients'))),
            'short' => 'broadcast deliveries/s',
            'detail' => \sprintf('%s clients in one room, median', number_format(JsonFields::float($settings, 'clients'))),
            'nexus' => \sprintf('%s with 2 workers (%s–%s)%s', self::rate(JsonFields::float($nexusBroadcast, 'median')), self::rate(JsonFields::float($nexusBroadcast, 'min')), self::rate(JsonFields::float($nexusBroadcast, 'max')), self::closed($nexusBroadcast)),
            'workerman' => \sprintf('%s with 1 worker%s', self::rate(JsonFields::float($workermanBroadcast, 'median')), self::closed($workermanBroadcast)),
            'target' => '',
            'met' => null,
            'values' => [JsonFields::float($nexusBroadcast, 'median'), JsonFields::float($workermanBroadcast, 'median')],
            'marker' => null,
        ];
        $idle = JsonFields::section($this->results, 'idle');
        $nexusIdle = JsonFields::section($idle, 'nexus');
        $deflateIdle = JsonFields::section($idle, 'nexus-deflate');
        $workermanIdle = JsonFields::section($idle, 'workerman');
        $bytes = JsonFields::float($nexusIdle, 'bytes_per_connection');
        $rows[] = [
            'name' => \sprintf('PHP heap per idle connection, %s idle', number_format(JsonFields::float($nexusIdle, 'idle'))),
            'short' => 'PHP heap per idle connection',
            'detail' => \sprintf('%s idle; lower is better', number_format(JsonFields::float($nexusIdle, 'idle'))),
            'nexus' => \sprintf('%s B (%s B with permessage-deflate agreed)', number_format($bytes), number_format(JsonFields::float($deflateIdle, 'bytes_per_connection'))),
            'workerman' => \sprintf('%s B', number_format(JsonFields::float($workermanIdle, 'bytes_per_connection'))),
            'target' => '≤ 4 KB',
            'met' => $bytes > 0 && $bytes <= self::MEMORY_TARGET,
            'values' => [$bytes, JsonFields::float($workermanIdle, 'bytes_per_connection')],
            'marker' => (float) self::MEMORY_TARGET,
        ];
        $p99 = JsonFields::float($nexusIdle, 'p99_ms');
        $rows[] = [
            'name' => \sprintf('echo latency with %s idle connections open, p50 / p99', number_format(JsonFields::float($nexusIdle, 'idle'))),
            'short' => 'echo p99 beside idle connections',
            'detail' => \sprintf('%s idle open; lower is better', number_format(JsonFields::float($nexusIdle, 'idle'))),
            'nexus' => \sprintf('%.2f / %.2f ms', JsonFields::float($nexusIdle, 'p50_ms'), $p99),
            'workerman' => \sprintf('%.2f / %.2f ms', JsonFields::float($workermanIdle, 'p50_ms'), JsonFields::float($workermanIdle, 'p99_ms')),
            'target' => '≤ 10 ms',
            'met' => $p99 > 0 && $p99 <= self::LATENCY_TARGET_MS,
            'values' => [$p99, JsonFields::float($workermanIdle, 'p99_ms')],
            'marker' => self::LATENCY_TARGET_MS,
        ];
        $many = JsonFields::section($idle, 'nexus-many');
        $manyCount = number_format(JsonFields::float($many, 'idle'));
        $skipped = isset($many['skipped']) && \is_scalar($many['skipped']) ? 'not measured: ' . $many['skipped'] : null;
        $manyBytes = JsonFields::float($many, 'bytes_per_connection');
        $rows[] = [
            'name' => "PHP heap per idle connection, {$manyCount} idle on one worker",
            'short' => "heap per connection at {$manyCount}",
            'detail' => 'one worker, epoll; lower is better',
            'nexus' => $skipped ?? \sprintf('%s B', number_format($manyBytes)),
            'workerman' => '— (select: 1,024 descriptors)',
            'target' => '≤ 4 KB',
            'met' => $skipped === null && $manyBytes > 0 && $manyBytes <= self::MEMORY_TARGET,
            'values' => [$skipped === null ? $manyBytes : null, null],
            'marker' => (float) self::MEMORY_TARGET,
        ];
        $manyP99 = JsonFields::float($many, 'p99_ms');
        $rows[] = [
            'name' => "echo latency with {$manyCount} idle connections open on one worker, p50 / p99 / max",
            'short' => "echo p99 beside {$manyCount} idle",
            'detail' => 'one worker, epoll; lower is better',
            'nexus' => $skipped ?? \sprintf('%.2f / %.2f / %.1f ms', JsonFields::float($many, 'p50_ms'), $manyP99, JsonFields::float($many, 'max_ms')),
            'workerman' => '—',
            'target' => '≤ 10 ms (p99)',
            'met' => $skipped === null && $manyP99 > 0 && $manyP99 <= self::LATENCY_TARGET_MS,
            'values' => [$skipped === null ? $manyP99 : null, null],
            'marker' => self::LATENCY_TARGET_MS,
        ];
        $answered = JsonFields::float($many, 'all_answered');
        $rows[] = [
            'name' => 'idle connections on one worker that each got their echo, all at once',
            'short' => 'idle connections per worker',
            'detail' => '',
            'nexus' => $skipped ?? \sprintf('%s of %s in %.2f s%s', number_format($answered), $manyCount, JsonFields::float($many, 'all_seconds'), JsonFields::float($many, 'closed') > 0 ? \sprintf(', %d closed by the server', (int) JsonFields::float($many, 'closed')) : ''),
            'workerman' => '—',
            'target' => '10,000',
            'met' => $skipped === null && $answered >= 10_000 && $answered >= JsonFields::float($many, 'idle'),
            'values' => [$answered, null],
            'marker' => null,
        ];

        return $rows;
    }

    private function notes(): string
    {
        return implode("\n", [
            '- Workerman runs one worker with its default `select` event loop, like the one-worker Nexus for echo and idle. For the broadcast it runs one worker that sends each message to every connection it has (`$worker->connections`): it has no broadcast across its worker processes without its separate Channel server. Nexus runs two workers, and a message goes publisher → the room actor on the worker that owns the room → the hub of each worker → the subscribers there (Topics); a hub writes what it took in one loop turn to each subscriber in one write.',
            '- Idle at scale: one Nexus worker on the epoll driver (through FFI; the worker raises its descriptor limit to the hard limit), and a client process of its own on an epoll loop (bench/ws/idle-client.php) that opens the connections 250 at a time and answers the server\'s pings. While they are open it times 2,000 echo round trips one after the other on one more connection, then sends one message on every idle connection at once and counts those that got their own message back. Workerman is not run at this size: its default `select` loop takes 1,024 descriptors at most (more needs its `event` or `ev` extension, not installed here).',
            '- Memory is `memory_get_usage()` of the worker after a collection, before and after the idle connections, divided by their number: everything PHP holds for a connection (the socket, its read watcher, the WebSocket connection and its handler state).',
        ]);
    }

    private function chart(): string
    {
        $rows = [];
        foreach ($this->rows() as $row) {
            if ($row['short'] === 'idle connections per worker') {
                continue;
            }
            [$nexus, $workerman] = $row['values'];
            $rows[] = new ChartRow(
                $row['short'],
                $row['detail'],
                [$nexus, $workerman],
                [explode(' (', $row['nexus'])[0], explode(' (', $row['workerman'])[0]],
                $row['marker'],
                $row['target'] === '' ? '' : "target {$row['target']}",
                '',
                $row['met'],
            );
        }

        return (new SvgBarChart('WebSocket: Nexus and Workerman (make bench-ws)', ['Nexus', 'Workerman'], 'target', 'Bars: measured; dashed line: the target. Lower is better for CPU, memory and latency.'))->render($rows);
    }

    /**
     * @param array<string, mixed> $section
     */
    private static function closed(array $section): string
    {
        $closed = (int) JsonFields::float($section, 'closed');

        return $closed === 0 ? '' : ", {$closed} clients closed for not reading";
    }





    private static function rate(float $value): string
    {
        return match (true) {
            $value >= 1e6 => \sprintf('%.2fM', $value / 1e6),
            $value >= 1e3 => \sprintf('%.1fK', $value / 1e3),
            default => \sprintf('%.0f', $value),
        };
    }
}
