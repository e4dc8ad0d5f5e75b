<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Bench\ChartRow;
use Nexus\Bench\Environment;
use Nexus\Bench\SvgBarChart;

/**
 * The bench:db section of docs/performance.md and docs/img/db-bench.svg, from one
 * `make bench-db` run.
 */
final class DbReport
{
    public const START = '<!-- bench:db:start -->';
    public const END = '<!-- bench:db:end -->';
    /** Through the proxy, at this worker count: Nexus holds at least RATE_FACTOR x php-fpm's rate... */
    public const TARGET_WORKERS = 2;
    public const RATE_FACTOR = 3.0;
    /** ...with p50 at most P50_FACTOR x one request's 10 queries run back to back. */
    public const P50_FACTOR = 2.0;

    /**
     * @param list<DbRun>          $runs
     * @param array<string, float> $baselineMs link => ms for one request's 10 queries back to back
     * @param array<string, mixed> $settings   what the run was configured with (shown in the section)
     */
    public function __construct(
        private readonly array $runs,
        private readonly array $baselineMs,
        private readonly array $settings = [],
    ) {}

    public function find(string $server, int $workers, string $link): ?DbRun
    {
        foreach ($this->runs as $run) {
            if ($run->server === $server && $run->workers === $workers && $run->link === $link) {
                return $run;
            }
        }

        return null;
    }

    /**
     * @return list<int>
     */
    public function workerCounts(): array
    {
        $counts = array_values(array_unique(array_map(static fn(DbRun $r): int => $r->workers, $this->runs)));
        sort($counts);

        return $counts;
    }

    /**
     * @return list<string>
     */
    public function links(): array
    {
        return array_values(array_filter(DbRun::LINKS, fn(string $link): bool => array_filter($this->runs, static fn(DbRun $r): bool => $r->link === $link) !== []));
    }

    /**
     * The issue's targets: [description, what was measured, true/false, or null when not measurable].
     *
     * @return list<array{string, string, bool|null}>
     */
    public function targets(): array
    {
        $targets = [];
        $w = self::TARGET_WORKERS;
        $nexus = $this->find(DbServers::NEXUS, $w, DbRun::PROXY);
        $fpm = $this->find(DbServers::FPM, $w, DbRun::PROXY);
        $nexusRate = $nexus?->bestRate();
        $fpmRate = $fpm?->bestRate();
        $rateTarget = sprintf('through the proxy, nexus with %d workers holds ≥ %.0f× the rate php-fpm holds with %d', $w, self::RATE_FACTOR, $w);
        if ($nexus === null || $fpm === null || $nexus->notMeasured !== null || $fpm->notMeasured !== null) {
            $why = $nexus->notMeasured ?? $fpm->notMeasured ?? 'not part of this run';
            $targets[] = [$rateTarget, 'not measured: ' . self::firstLine($why) . $this->oneWorkerHint(), null];
        } elseif ($nexusRate === null || $fpmRate === null) {
            $targets[] = [$rateTarget, sprintf('nexus %s, php-fpm %s req/s', self::rate($nexusRate), self::rate($fpmRate)), $nexusRate !== null];
        } else {
            $targets[] = [$rateTarget, sprintf('nexus %s vs php-fpm %s req/s = %.1f×', self::rate($nexusRate), self::rate($fpmRate), $nexusRate / $fpmRate), $nexusRate >= self::RATE_FACTOR * $fpmRate];
        }
        $baseline = $this->baselineMs[DbRun::PROXY] ?? null;
        $p50Target = sprintf('through the proxy, nexus (%d workers) p50 at that rate ≤ %.0f× the 10 queries back to back', $w, self::P50_FACTOR);
        $p50 = $nexus?->best()?->result->p50Ms;
        if ($p50 === null || $baseline === null) {
            $targets[] = [$p50Target, 'not measured' . ($nexus?->notMeasured !== null ? ': ' . self::firstLine($nexus->notMeasured) : ''), null];
        } else {
            $targets[] = [$p50Target, sprintf('p50 %s at %s req/s vs %.0f× %s = %s', self::ms($p50), self::rate($nexusRate), self::P50_FACTOR, self::ms($baseline), self::ms(self::P50_FACTOR * $baseline)), $p50 <= self::P50_FACTOR * $baseline];
        }
        foreach ($this->workerCounts() as $workers) {
            $n = $this->find(DbServers::NEXUS, $workers, DbRun::LOOPBACK);
            $f = $this->find(DbServers::FPM, $workers, DbRun::LOOPBACK);
            $description = "on loopback with {$workers} worker" . ($workers === 1 ? '' : 's') . ', nexus not slower than php-fpm (max rate held)';
            if ($n === null || $f === null || $n->notMeasured !== null || $f->notMeasured !== null) {
                $targets[] = [$description, 'not measured' . ($n?->notMeasured !== null ? ': ' . self::firstLine($n->notMeasured) : ''), null];

                continue;
            }
            $nr = $n->bestRate();
            $fr = $f->bestRate();
            $targets[] = [$description, sprintf('nexus %s vs php-fpm %s req/s', self::rate($nr), self::rate($fr)), $nr !== null && ($fr === null || $nr >= $fr)];
        }

        return $targets;
    }

    public function section(Environment $environment, string $command, string $date, string $chartPath, float $generatorCpuMax): string
    {
        $s = $this->settings;
        $setting = static fn(string $key, string $default = '?'): string => isset($s[$key]) && \is_scalar($s[$key]) ? (string) $s[$key] : $default;
        $lines = [];
        $lines[] = '## Database-bound: Nexus + async PostgreSQL against nginx + php-fpm + PDO';
        $lines[] = '';
        $lines[] = "_Generated by `make bench-db` (bench/db/run.php) on {$date}; edit bench/db and bench/src/Db, not this section._";
        $lines[] = '';
        $lines[] = sprintf('**Machine:** %d cores (%s); PHP %s. PostgreSQL, the proxy, the load generator and the server under test all share these cores, so the figures are noisy and low compared with a real deployment.', $environment->cores, $environment->cpu, $environment->php);
        $lines[] = '';
        $lines[] = "**Command:** `{$command}`";
        $lines[] = '';
        $lines[] = '**Workload:** every request runs the same 10 queries one after the other (user by id, 10 posts of that user, insert a post view, update views_count, an aggregate over that post\'s views, top 5 posts, post count per user top 5, another user, 5 posts of that user, the 10 most recent views) and answers with JSON. 100 users, 1,000 posts, a post_views table that grows by one row per request; reset to the seed before each server\'s rate search. PostgreSQL ' . $setting('postgres') . ' in a temporary directory, fsync off.';
        $lines[] = '';
        $lines[] = '**Servers** (equal worker counts):';
        $lines[] = '';
        $lines[] = '- `nexus`: `php bin/nexus serve bench/db/nexus-app.php --workers=N` (OPcache + tracing JIT), a `PgPool` of ' . $setting('pool') . ' connections per worker; a request waiting for PostgreSQL does not hold its worker.';
        $lines[] = '- `php-fpm`: nginx (1 worker) in front of php-fpm (`pm = static`, N children; OPcache + tracing JIT) running bench/db/fpm-app.php with blocking PDO: a persistent connection per child, emulated prepares (one round trip per query, as the async client does). A child serves one request at a time.';
        $lines[] = '';
        $lines[] = sprintf(
            '**Links:** `loopback` = straight to PostgreSQL on 127.0.0.1; `proxy` = through bench/db/proxy.php, a TCP proxy on our loop that holds every chunk %s ms in each direction (this kernel has no netem), modelling a database one network hop away.',
            $setting('delay_ms'),
        );
        $lines[] = '';
        $lines[] = sprintf(
            '**Load:** bench/db/load.php, an open-model generator on our loop (wrk2 and k6 are not packaged here): requests start at a constant rate whether or not earlier ones finished, on keep-alive connections, at most %s in flight (a request that finds them all busy is *dropped*); latency from the scheduled start (no coordinated omission). Each step: %s s warm-up, %s s measured. A rate is *held* when < %.0f %% are dropped, < %.0f %% fail and the responses keep up (≥ %.0f %% of the rate). The search ramps ×2 from %s req/s, then bisects (at most %s steps). Its own CPU peaked at %.2f of a core (it holds several thousand req/s against a trivial server).',
            $setting('max_in_flight'),
            $setting('warmup'),
            $setting('duration'),
            LoadResult::MAX_DROPPED_PERCENT,
            LoadResult::MAX_DROPPED_PERCENT,
            LoadResult::MIN_THROUGHPUT_SHARE * 100,
            $setting('start_rate'),
            $setting('max_steps'),
            $generatorCpuMax,
        );
        $lines[] = '';
        $proxyCpu = 0.0;
        foreach ($this->runs as $run) {
            foreach ([...$run->steps, ...($run->common === null ? [] : [$run->common])] as $step) {
                $proxyCpu = max($proxyCpu, $step->proxyCpuShare() ?? 0.0);
            }
        }
        if ($proxyCpu > 0.0) {
            $lines[] = sprintf(
                'The proxy is one PHP process for all connections; its CPU peaked at %.2f of a core%s',
                $proxyCpu,
                $proxyCpu >= 0.8 ? ': near that ceiling the proxy, not the server, limits the proxy rates, so read them as lower bounds.' : ', so it was not the limit.',
            );
            $lines[] = '';
        }
        $baselines = [];
        foreach ($this->baselineMs as $link => $ms) {
            $baselines[] = "{$link} " . self::ms($ms);
        }
        $lines[] = '**One request\'s 10 queries back to back** (blocking PDO, one connection, median, same run): ' . ($baselines === [] ? 'not measured' : implode(', ', $baselines)) . '.';
        $lines[] = '';
        $lines[] = '### Highest rate held';
        $lines[] = '';
        $lines[] = '| link | workers | server | rate held (req/s) | throughput | p50 | p95 | p99 | dropped | server CPU | RSS (all processes) |';
        $lines[] = '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
        foreach ($this->links() as $link) {
            foreach ($this->workerCounts() as $workers) {
                foreach (DbServers::ALL as $server) {
                    $run = $this->find($server, $workers, $link);
                    if ($run === null) {
                        continue;
                    }
                    if ($run->notMeasured !== null) {
                        $lines[] = "| {$link} | {$workers} | `{$server}` | not measured: " . self::cell(self::firstLine($run->notMeasured)) . ' | | | | | | | |';

                        continue;
                    }
                    $best = $run->best();
                    if ($best === null) {
                        $lowest = $run->steps[0] ?? null;
                        $lines[] = sprintf('| %s | %d | `%s` | none (lowest tried %s failed) | | | | | | | |', $link, $workers, $server, $lowest === null ? '-' : self::rate($lowest->result->rate));

                        continue;
                    }
                    $lines[] = self::row($link, $workers, $server, $best, self::rate($best->result->rate));
                }
            }
        }
        $lines[] = '';
        $lines[] = 'A rate counts as held on drops alone (as in the issue): within a short step a server just past its capacity can still build a queue without dropping, which shows as a p50 far above the others. The common-rate table re-runs both servers at the same rate.';
        $lines[] = '';
        $lines[] = 'RSS: summed VmRSS of all the server\'s processes (nginx + php-fpm master and children; the nexus process and its workers), peak during the step; PostgreSQL\'s own memory is not included. Server CPU: CPU seconds of those processes ÷ wall time (1.00 = one core).';
        $lines[] = '';
        $lines[] = '### At a common rate (the lower of the two rates held, per link and worker count)';
        $lines[] = '';
        $lines[] = '| link | workers | server | rate (req/s) | throughput | p50 | p95 | p99 | dropped | server CPU | RSS (all processes) |';
        $lines[] = '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
        foreach ($this->links() as $link) {
            foreach ($this->workerCounts() as $workers) {
                foreach (DbServers::ALL as $server) {
                    $common = $this->find($server, $workers, $link)?->common;
                    if ($common !== null) {
                        $lines[] = self::row($link, $workers, $server, $common, self::rate($common->result->rate));
                    }
                }
            }
        }
        $lines[] = '';
        $lines[] = '### Targets (issue 6)';
        $lines[] = '';
        foreach ($this->targets() as [$target, $measured, $ok]) {
            $lines[] = sprintf('- %s %s: %s', match ($ok) {
                true => '✅',
                false => '❌',
                null => '➖',
            }, $target, $measured);
        }
        $lines[] = '';
        $lines[] = "![Database-bound benchmark]({$chartPath})";
        $lines[] = '';
        $lines[] = 'Raw figures, every step of every rate search: bench/results/db.json.';
        $lines[] = '';

        return implode("\n", $lines);
    }

    public function chart(): string
    {
        $rows = [];
        $fpmProxy = $this->find(DbServers::FPM, self::TARGET_WORKERS, DbRun::PROXY)?->bestRate();
        foreach ($this->links() as $link) {
            foreach ($this->workerCounts() as $workers) {
                $values = [];
                $labels = [];
                foreach (DbServers::ALL as $server) {
                    $run = $this->find($server, $workers, $link);
                    $rate = $run?->bestRate();
                    $values[] = $rate;
                    $labels[] = $run?->notMeasured !== null ? 'not measured' : ($rate === null ? 'none held' : self::rate($rate) . ' req/s');
                }
                $marker = $link === DbRun::PROXY && $workers === self::TARGET_WORKERS && $fpmProxy !== null ? self::RATE_FACTOR * $fpmProxy : null;
                $rows[] = new ChartRow(
                    "{$link}, {$workers} worker" . ($workers === 1 ? '' : 's'),
                    'highest rate held (req/s)',
                    $values,
                    $labels,
                    $marker,
                    $marker === null ? '' : sprintf('target: ≥ %.0f× php-fpm', self::RATE_FACTOR),
                );
            }
        }
        foreach ($this->links() as $link) {
            foreach ($this->workerCounts() as $workers) {
                $values = [];
                $labels = [];
                $rate = null;
                foreach (DbServers::ALL as $server) {
                    $common = $this->find($server, $workers, $link)?->common;
                    $values[] = $common?->result->p50Ms;
                    $labels[] = $common?->result->p50Ms === null ? 'n/a' : self::ms($common->result->p50Ms);
                    $rate ??= $common?->result->rate;
                }
                if ($rate === null) {
                    continue;
                }
                $baseline = $this->baselineMs[$link] ?? null;
                $rows[] = new ChartRow(
                    "{$link}, {$workers} worker" . ($workers === 1 ? '' : 's'),
                    'p50 at ' . self::rate($rate) . ' req/s (ms)',
                    $values,
                    $labels,
                    $baseline,
                    $baseline === null ? '' : 'marker: 10 queries back to back',
                );
            }
        }

        return (new SvgBarChart(
            'Database-bound benchmark: 10 PostgreSQL queries per request',
            DbServers::ALL,
            'note',
            'Open-model load (constant arrival rate); held = < 1 % dropped. proxy = 1 ms each way to PostgreSQL. make bench-db; bench/results/db.json',
        ))->render($rows);
    }

    public static function replaceSection(string $document, string $section): string
    {
        $start = strpos($document, self::START);
        $end = strpos($document, self::END);
        if ($start === false && $end === false) {
            return rtrim($document, "\n") . "\n\n" . self::START . "\n" . $section . self::END . "\n";
        }
        if ($start === false || $end === false || $end < $start) {
            throw new \UnexpectedValueException('The document has only one of the markers ' . self::START . ' and ' . self::END . ', or has them out of order; fix the markers by hand.');
        }

        return substr($document, 0, $start + \strlen(self::START)) . "\n" . $section . substr($document, $end);
    }

    private function oneWorkerHint(): string
    {
        $nexus = $this->find(DbServers::NEXUS, 1, DbRun::PROXY)?->bestRate();
        $fpm = $this->find(DbServers::FPM, self::TARGET_WORKERS, DbRun::PROXY)?->bestRate();
        if ($nexus === null || $fpm === null) {
            return '';
        }

        return sprintf(' (for reference: nexus with 1 worker held %s req/s, %.1f× php-fpm with %d)', self::rate($nexus), $nexus / $fpm, self::TARGET_WORKERS);
    }

    private static function row(string $link, int $workers, string $server, DbStep $step, string $rate): string
    {
        $r = $step->result;

        return sprintf(
            '| %s | %d | `%s` | %s | %s | %s | %s | %s | %.2f %% | %s | %s |',
            $link,
            $workers,
            $server,
            $rate,
            number_format($r->throughput, 0, '.', ','),
            $r->p50Ms === null ? '-' : self::ms($r->p50Ms),
            $r->p95Ms === null ? '-' : self::ms($r->p95Ms),
            $r->p99Ms === null ? '-' : self::ms($r->p99Ms),
            $r->droppedPercent(),
            $step->serverCpuShare() === null ? '-' : sprintf('%.2f', $step->serverCpuShare()),
            $step->peakRssBytes === null ? '-' : sprintf('%.0f MB', $step->peakRssBytes / 1_048_576),
        );
    }

    private static function rate(?float $rate): string
    {
        return $rate === null ? '-' : number_format($rate, 0, '.', ',');
    }

    private static function ms(float $ms): string
    {
        return $ms >= 1000.0 ? sprintf('%.2f s', $ms / 1000.0) : ($ms >= 10.0 ? sprintf('%.1f ms', $ms) : sprintf('%.2f ms', $ms));
    }

    private static function firstLine(string $text): string
    {
        return trim(explode("\n", trim($text))[0]);
    }

    private static function cell(string $text): string
    {
        return str_replace('|', '\|', $text);
    }
}
