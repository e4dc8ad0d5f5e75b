<?php

declare(strict_types=1);

/*
 * The cost of each stage of a message through the actor runtime: php bench/hotpath.php
 * [--iterations=N] [--repeats=N]. Run it with the tracing JIT for the figures in the docs.
 */

use Nexus\Bench\BenchmarkFailure;
use Nexus\Bench\Environment;
use Nexus\Bench\HotPath;

require dirname(__DIR__) . '/vendor/autoload.php';

$iterations = 300_000;
$repeats = 7;
foreach (array_slice($argv, 1) as $argument) {
    if (preg_match('/^--(iterations|repeats)=(\d+)$/', $argument, $match) !== 1) {
        fwrite(STDERR, "Usage: php bench/hotpath.php [--iterations=N] [--repeats=N]\n");
        exit(2);
    }
    if ($match[1] === 'iterations') {
        $iterations = (int) $match[2];
    } else {
        $repeats = (int) $match[2];
    }
}

try {
    $hotPath = new HotPath($iterations, $repeats);
    $stages = $hotPath->measure();
} catch (InvalidArgumentException|BenchmarkFailure $e) {
    fwrite(STDERR, $e->getMessage() . "\n");
    exit(1);
}

$environment = Environment::detect();
printf(
    "Hot path of one message: PHP %s, JIT %s, %s iterations, median of %d, empty loop (%.2f ns/iteration) subtracted\n\n",
    $environment->php,
    $environment->jit ? 'tracing' : 'off',
    number_format($hotPath->iterations),
    $hotPath->repeats,
    $hotPath->loopOverhead(),
);
echo HotPath::table($stages);
