<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * bench/metrics.php runs and prints every case (tiny counts: the figures themselves are for the docs).
 */
final class MetricsBenchSmokeTest extends TestCase
{
    public function testTheMetricsBenchmarkPrintsEveryCase(): void
    {
        $process = PhpProcess::run(['bench/metrics.php', '--iterations=1000', '--repeats=1'], __DIR__ . '/../../..', 30.0);

        self::assertSame(0, $process->exitCode, $process->describe());
        foreach (['++$int (baseline)', 'CounterSeries::inc()', 'GaugeSeries::set()', 'HistogramSeries::observe(0.003)'] as $case) {
            self::assertMatchesRegularExpression('/^' . preg_quote($case, '/') . ' +\d+\.\d\d +\d+$/m', $process->stdout);
        }
    }
}
