<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Metrics;

use Nexus\Metrics\HistogramSeries;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use Nexus\Metrics\SnapshotMerger;
use PHPUnit\Framework\TestCase;

/**
 * Registry::histogramCallback(): a histogram read at scrape time from series something else
 * observes into, rendered and merged like a declared one; malformed rows are counted, not shown.
 */
final class HistogramCallbackTest extends TestCase
{
    public function testItShowsTheSeriesItReadsAndMergesOverWorkers(): void
    {
        $series = new HistogramSeries([0.1, 1.0]);
        foreach ([0.05, 0.5, 0.5, 3.0] as $seconds) {
            $series->observe($seconds);
        }
        $registry = new Registry();
        $registry->histogramCallback('db.client.operation.duration', 'Statement duration.', static fn(): array => [[['pg'], $series->counts(), $series->sum()]], ['pool'], buckets: [0.1, 1.0]);

        $text = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString("db_client_operation_duration_seconds_bucket{pool=\"pg\",le=\"0.1\"} 1\n", $text);
        self::assertStringContainsString("db_client_operation_duration_seconds_bucket{pool=\"pg\",le=\"1\"} 3\n", $text);
        self::assertStringContainsString("db_client_operation_duration_seconds_bucket{pool=\"pg\",le=\"+Inf\"} 4\n", $text);
        self::assertStringContainsString("db_client_operation_duration_seconds_sum{pool=\"pg\"} 4.05\n", $text);
        self::assertStringContainsString("db_client_operation_duration_seconds_count{pool=\"pg\"} 4\n", $text);

        $merged = PrometheusText::render(SnapshotMerger::merge(['0' => $registry->snapshot(), '1' => $registry->snapshot()]));
        self::assertStringContainsString("db_client_operation_duration_seconds_count{pool=\"pg\"} 8\n", $merged);
    }

    public function testAMalformedRowIsCountedAsACallbackErrorAndPastTheLimitRowsOverflow(): void
    {
        $registry = new Registry();
        $registry->histogramCallback('bad', 'Wrong bucket count.', static fn(): array => [[['a'], [1, 2], 0.5]], ['pool'], buckets: [0.1, 1.0]);
        $registry->histogramCallback('many', 'Two rows, room for one.', static fn(): array => [[['a'], [1, 0, 0], 0.05], [['b'], [0, 2, 1], 4.0]], ['pool'], buckets: [0.1, 1.0], maxSeries: 1);

        $text = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString("nexus_metrics_callback_errors_total{metric=\"bad_seconds\"} 1\n", $text);
        self::assertStringNotContainsString('bad_seconds_bucket', $text);
        self::assertStringContainsString("many_seconds_count{pool=\"a\"} 1\n", $text);
        self::assertStringContainsString("many_seconds_count{otel_metric_overflow=\"true\"} 3\n", $text);
        self::assertArrayHasKey('bad_seconds', $registry->callbackErrors());
    }
}
