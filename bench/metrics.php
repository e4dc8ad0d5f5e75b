<?php

declare(strict_types=1);

/*
 * The cost of the metrics hot path per call, beside a bare `++$int` of the same run:
 * php bench/metrics.php [--iterations=N] [--repeats=N]. Run it with the tracing JIT too:
 * php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/metrics.php
 *
 * Each figure is the median of the repeats, in nanoseconds per call, with the cost of the empty
 * loop subtracted; the memory column says whether a million calls allocated anything.
 */

use Nexus\Bench\Environment;
use Nexus\Metrics\Registry;

require dirname(__DIR__) . '/vendor/autoload.php';

$iterations = 2_000_000;
$repeats = 7;
foreach (array_slice($argv, 1) as $argument) {
    if (preg_match('/^--(iterations|repeats)=(\d+)$/', $argument, $match) !== 1 || (int) $match[2] < 1) {
        fwrite(STDERR, "Usage: php bench/metrics.php [--iterations=N] [--repeats=N]\n");
        exit(2);
    }
    if ($match[1] === 'iterations') {
        $iterations = (int) $match[2];
    } else {
        $repeats = (int) $match[2];
    }
}

$registry = new Registry();
$counter = $registry->counter('bench.requests', 'Requests.', ['http.request.method'])->labels('GET');
$gauge = $registry->gauge('bench.depth', 'Depth.', ['kind'])->labels('orders');
$histogram = $registry->histogram('bench.duration', 'Duration.', ['http.request.method'])->labels('GET');

/** @var array<string, Closure(int): void> $cases */
$cases = [
    'empty loop' => static function (int $n): void {
        for ($i = 0; $i < $n; ++$i) {
        }
    },
    '++$int (baseline)' => static function (int $n): void {
        $value = 0;
        for ($i = 0; $i < $n; ++$i) {
            ++$value;
        }
    },
    'CounterSeries::inc()' => static function (int $n) use ($counter): void {
        for ($i = 0; $i < $n; ++$i) {
            $counter->inc();
        }
    },
    'GaugeSeries::set()' => static function (int $n) use ($gauge): void {
        for ($i = 0; $i < $n; ++$i) {
            $gauge->set($i);
        }
    },
    'HistogramSeries::observe(0.003)' => static function (int $n) use ($histogram): void {
        for ($i = 0; $i < $n; ++$i) {
            $histogram->observe(0.003);
        }
    },
    'HistogramSeries::observe(0.3)' => static function (int $n) use ($histogram): void {
        for ($i = 0; $i < $n; ++$i) {
            $histogram->observe(0.3);
        }
    },
    'HistogramSeries::observe(20.0) (+Inf)' => static function (int $n) use ($histogram): void {
        for ($i = 0; $i < $n; ++$i) {
            $histogram->observe(20.0);
        }
    },
    'Counter::labels(\'GET\')->inc() (lookup each time)' => static function (int $n) use ($registry): void {
        $family = $registry->counter('bench.requests', 'Requests.', ['http.request.method']);
        for ($i = 0; $i < $n; ++$i) {
            $family->labels('GET')->inc();
        }
    },
];

$medians = [];
$allocated = [];
foreach ($cases as $name => $case) {
    $case(1000); // warm up (and let the JIT compile it)
    $runs = [];
    $memory = memory_get_usage();
    for ($r = 0; $r < $repeats; ++$r) {
        $start = hrtime(true);
        $case($iterations);
        $runs[] = (hrtime(true) - $start) / $iterations;
    }
    $allocated[$name] = memory_get_usage() - $memory;
    sort($runs);
    $medians[$name] = $runs[intdiv(count($runs), 2)];
}

$environment = Environment::detect();
printf(
    "Metrics hot path: PHP %s, JIT %s, %s calls per run, median of %d, empty loop (%.2f ns) subtracted\n\n",
    $environment->php,
    $environment->jit ? 'tracing' : 'off',
    number_format($iterations),
    $repeats,
    $medians['empty loop'],
);
printf("%-48s %12s %14s\n", 'case', 'ns per call', 'bytes retained');
foreach ($medians as $name => $median) {
    if ($name === 'empty loop') {
        continue;
    }
    printf("%-48s %12.2f %14d\n", $name, max(0.0, $median - $medians['empty loop']), $allocated[$name]);
}
