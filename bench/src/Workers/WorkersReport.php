<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Bench\ChartRow;
use Nexus\Bench\JsonFields;
use Nexus\Bench\ReportFiles;
use Nexus\Bench\SvgBarChart;

/**
 * The results of `make bench-workers` as a table, a section of docs/performance.md and a chart.
 */
final class WorkersReport
{
    private const START = '<!-- bench:workers:start -->';
    private const END = '<!-- bench:workers:end -->';

    /**
     * @param array<string, mixed> $results as bench/workers/run.php collects them
     */
    public function __construct(private readonly array $results) {}

    public function table(): string
    {
        $lines = ['| measure | Nexus | same run, one worker | target | reference | met |', '|---|---|---|---|---|---|'];
        foreach ($this->rows() as [$name, $value, $baseline, $target, $reference, $met]) {
            $lines[] = "| {$name} | {$value} | {$baseline} | {$target} | {$reference} | " . ($met === null ? '—' : ($met ? 'yes' : 'no')) . ' |';
        }

        return implode("\n", $lines) . "\n";
    }

    /**
     * @return string|null what went wrong, or null when the section and the chart were written
     */
    public function writeInto(string $document, string $svgPath, string $command): ?string
    {
        $section = \sprintf(
            "\nMeasured %s with `%s` (PHP %s, %s, %d cores; worker processes, real Unix sockets between them).\n\n%s\n%s\n![worker pool benchmarks](img/workers-bench.svg)\n\n",
            JsonFields::string($this->results, 'date'),
            $command,
            JsonFields::string($this->results, 'php'),
            ($this->results['jit'] ?? false) === true ? 'tracing JIT' : 'no JIT',
            JsonFields::int($this->results, 'cores'),
            $this->table(),
            $this->httpNote(),
        );

        return ReportFiles::update($document, $svgPath, static function (string $text) use ($section): string {
            $start = strpos($text, self::START);
            $end = strpos($text, self::END);
            if ($start === false || $end === false || $end < $start) {
                return rtrim($text) . "\n\n## Worker pool (`make bench-workers`)\n\n" . self::START . $section . self::END . "\n";
            }

            return substr($text, 0, $start + \strlen(self::START)) . $section . substr($text, $end);
        }, $this->chart());
    }

    /**
     * @return list<array{string, string, string, string, string, bool|null}>
     */
    private function rows(): array
    {
        $m = JsonFields::section($this->results, 'messaging');
        $rows = [];
        $pair = JsonFields::float($m, 'pair_msgs_per_s');
        $rows[] = ['cross-worker tell, one worker pair', self::rate($pair) . ' msgs/s', self::rate(JsonFields::float($m, 'local_msgs_per_s')) . ' msgs/s', '≥ 1M msgs/s', '260K msgs/s', $pair >= 1e6];
        $rtt = JsonFields::float($m, 'ask_rtt_us');
        $rows[] = [
            'cross-worker ask round trip',
            \sprintf('%.1f µs', $rtt),
            \sprintf('%.1f µs (bare process ping-pong: %.1f µs)', JsonFields::float($m, 'local_ask_rtt_us'), JsonFields::float($this->results, 'raw_pingpong_us')),
            '≤ 20 µs', '20 µs', $rtt > 0 && $rtt <= 20.0,
        ];
        $rows[] = [
            'fan-out: 5,000 messages to every worker',
            \sprintf('%.1f ms (%s msgs/s)', JsonFields::float($m, 'fanout_ms'), self::rate(JsonFields::float($m, 'fanout_msgs_per_s'))),
            '', '', '', null,
        ];
        $one = JsonFields::float(JsonFields::section($this->results, 'world_1'), 'orders_per_s');
        $two = JsonFields::float(JsonFields::section($this->results, 'world_2'), 'orders_per_s');
        $rows[] = ['world: orders/s with 2 workers (best of 3 runs)', self::rate($two) . ' orders/s', self::rate($one) . ' orders/s (1 worker)', '', '', null];
        $ceiling = JsonFields::float(JsonFields::section($this->results, 'world_local_2'), 'orders_per_s');
        $rows[] = [
            'world: 2 workers / 1 worker',
            \sprintf('%.2fx', $one > 0 ? $two / $one : 0),
            $ceiling > 0 && $one > 0 ? \sprintf('%.2fx if nothing crossed (2 workers, own shards: %s orders/s)', $ceiling / $one, self::rate($ceiling)) : '',
            '≥ 1.6x', '', $one > 0 && $two / $one >= 1.6,
        ];
        if (isset($this->results['http_1'], $this->results['http_2'])) {
            $h1 = JsonFields::float(JsonFields::section($this->results, 'http_1'), 'rps');
            $h2 = JsonFields::float(JsonFields::section($this->results, 'http_2'), 'rps');
            $rows[] = ['HTTP GET /: RPS with 2 workers', self::rate($h2) . ' RPS', self::rate($h1) . ' RPS (1 worker)', '', '', null];
            $rows[] = ['HTTP GET /: 2 workers / 1 worker', \sprintf('%.2fx', $h1 > 0 ? $h2 / $h1 : 0), '', '≥ 1.5x', '', $h1 > 0 && $h2 / $h1 >= 1.5];
        }
        if (isset($this->results['http_work_1'], $this->results['http_work_2'])) {
            $w1 = JsonFields::float(JsonFields::section($this->results, 'http_work_1'), 'rps');
            $w2 = JsonFields::float(JsonFields::section($this->results, 'http_work_2'), 'rps');
            $rows[] = ['HTTP GET /work (100 µs CPU): RPS with 2 workers', self::rate($w2) . ' RPS', self::rate($w1) . ' RPS (1 worker)', '', '', null];
            $rows[] = ['HTTP GET /work: 2 workers / 1 worker', \sprintf('%.2fx', $w1 > 0 ? $w2 / $w1 : 0), '', '≥ 1.5x', '', $w1 > 0 && $w2 / $w1 >= 1.5];
        }

        return $rows;
    }

    private function httpNote(): string
    {
        if (!isset($this->results['http_1'], $this->results['http_2'])) {
            return 'HTTP scaling was not measured in this run.';
        }
        $notes = [];
        foreach (['http_1' => 'GET /, 1 worker', 'http_2' => 'GET /, 2 workers', 'http_work_1' => 'GET /work, 1 worker', 'http_work_2' => 'GET /work, 2 workers'] as $key => $label) {
            if (!isset($this->results[$key])) {
                continue;
            }
            $h = JsonFields::section($this->results, $key);
            $seconds = max(1, JsonFields::float($h, 'seconds'));
            $notes[] = \sprintf(
                '%s: wrk took %.0f%% of a core and the server %.0f%% (p99 %s ms, %d errors)',
                $label,
                JsonFields::float($h, 'wrk_cpu_s') / $seconds * 100,
                JsonFields::float($h, 'server_cpu_s') / $seconds * 100,
                isset($h['p99_ms']) && is_numeric($h['p99_ms']) ? number_format((float) $h['p99_ms'], 2) : '—',
                (int) JsonFields::float($h, 'errors'),
            );
        }

        return 'wrk (one thread, 100 connections) shares the two cores with the server: ' . implode('; ', $notes) . '.';
    }

    private function chart(): string
    {
        $rows = [];
        foreach ($this->rows() as [$name, $value, $baseline, $target, , $met]) {
            if ($target === '') {
                continue;
            }
            $number = (float) preg_replace('/[^0-9.]/', '', explode(' ', $value)[0]);
            $scale = str_contains($value, 'M') ? 1e6 : (str_contains($value, 'K') ? 1e3 : 1.0);
            $goal = (float) preg_replace('/[^0-9.]/', '', $target);
            $goalScale = str_contains($target, 'M') ? 1e6 : 1.0;
            $rows[] = new ChartRow($name, $baseline === '' ? '' : "one worker: {$baseline}", [$number * $scale], [$value], $goal * $goalScale, "target {$target}", '', $met);
        }

        return (new SvgBarChart('Nexus worker pool (make bench-workers)', ['Nexus'], 'target', 'Bars: measured; dashed line: target.'))->render($rows);
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
