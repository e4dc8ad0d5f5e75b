<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Metrics;

use Nexus\Metrics\Aggregation;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use Nexus\Metrics\SnapshotMerger;
use Nexus\Metrics\WorkerSnapshots;
use PHPUnit\Framework\TestCase;

final class SnapshotMergerTest extends TestCase
{
    /**
     * A worker's registry with a known state.
     */
    private static function worker(int $requests, int $rss, float $latency, int $restarts = 0): Registry
    {
        $registry = new Registry();
        $registry->counter('http.server.requests', 'Requests.', ['http.route'])->labels('/x')->add($requests);
        $registry->gauge('process.memory.usage', 'RSS.', [], 'By')->set($rss);
        $registry->histogram('http.server.request.duration', 'Latency.', [], 's', [0.1, 1])->observe($latency);
        $registry->counter('nexus.worker.restarts', 'Restarts.', aggregation: Aggregation::PerWorker)->add($restarts);

        return $registry;
    }

    public function testCountersAndHistogramsAreSummedGaugesGetAWorkerLabel(): void
    {
        $merged = SnapshotMerger::merge([
            '0' => self::worker(3, 1000, 0.05)->snapshot(),
            '1' => self::worker(4, 2000, 0.5, 1)->snapshot(),
        ]);

        self::assertStringStartsWith(<<<'TXT'
            # HELP http_server_requests_total Requests.
            # TYPE http_server_requests_total counter
            http_server_requests_total{http_route="/x"} 7
            # HELP process_memory_usage_bytes RSS.
            # TYPE process_memory_usage_bytes gauge
            process_memory_usage_bytes{worker="0"} 1000
            process_memory_usage_bytes{worker="1"} 2000
            # HELP http_server_request_duration_seconds Latency.
            # TYPE http_server_request_duration_seconds histogram
            http_server_request_duration_seconds_bucket{le="0.1"} 1
            http_server_request_duration_seconds_bucket{le="1"} 2
            http_server_request_duration_seconds_bucket{le="+Inf"} 2
            http_server_request_duration_seconds_sum 0.55
            http_server_request_duration_seconds_count 2
            # HELP nexus_worker_restarts_total Restarts.
            # TYPE nexus_worker_restarts_total counter
            nexus_worker_restarts_total{worker="0"} 0
            nexus_worker_restarts_total{worker="1"} 1

            TXT, PrometheusText::render($merged));
    }

    public function testADifferentDefinitionOrAMalformedFamilyIsLeftOutAndCounted(): void
    {
        $a = new Registry();
        $a->counter('jobs', 'Jobs.', ['kind'])->labels('x')->inc();
        $b = new Registry();
        $b->counter('jobs', 'Jobs.', ['queue'])->labels('y')->inc();
        $broken = $a->snapshot();
        $broken['families']['jobs_total']['series'][0][1] = 'not a number';

        $text = PrometheusText::render(SnapshotMerger::merge(['0' => $a->snapshot(), '1' => $b->snapshot(), '2' => $broken]));

        self::assertStringContainsString("jobs_total{kind=\"x\"} 1\n", $text);
        self::assertStringNotContainsString('queue', $text);
        self::assertStringContainsString("nexus_metrics_merge_conflicts_total{metric=\"jobs_total\"} 2\n", $text);
    }

    public function testASummedMetricKeepsItsSeriesLimitAcrossWorkers(): void
    {
        $snapshots = [];
        foreach (['a', 'b', 'c'] as $i => $route) {
            $registry = new Registry();
            $registry->counter('requests', 'R.', ['http.route'], maxSeries: 2)->labels($route)->add($i + 1);
            $snapshots[(string) $i] = $registry->snapshot();
        }

        $text = PrometheusText::render(SnapshotMerger::merge($snapshots));

        self::assertStringContainsString("requests_total{http_route=\"a\"} 1\nrequests_total{http_route=\"b\"} 2\nrequests_total{otel_metric_overflow=\"true\"} 3\n", $text);
    }

    public function testOverflowSeriesArePerWorkerForPerWorkerMetrics(): void
    {
        $registry = new Registry();
        $gauge = $registry->gauge('depth', 'D.', ['kind'], maxSeries: 1);
        $gauge->labels('a')->set(1);
        $gauge->labels('b')->set(2);

        $text = PrometheusText::render(SnapshotMerger::merge(['7' => $registry->snapshot()]));

        self::assertStringContainsString("depth{worker=\"7\",kind=\"a\"} 1\ndepth{worker=\"7\",otel_metric_overflow=\"true\"} 2\n", $text);
    }

    public function testReplacedWorkersKeepTheirTotalsSoSumsNeverGoDown(): void
    {
        $store = new WorkerSnapshots();
        $store->put('0', self::worker(10, 1000, 0.05)->snapshot());
        $first = self::worker(5, 1000, 0.05, 0);
        $store->put('1', $first->snapshot());
        $first->counter('http.server.requests', 'Requests.', ['http.route'])->labels('/x')->add(1);
        $store->put('1', $first->snapshot()); // same incarnation: replaces, does not add

        self::assertStringContainsString("http_server_requests_total{http_route=\"/x\"} 16\n", PrometheusText::render($store->merged()));

        // Worker 1 is replaced: its counters start again from zero.
        $store->put('1', self::worker(2, 3000, 0.5)->snapshot());
        $text = PrometheusText::render($store->merged());
        self::assertStringContainsString("http_server_requests_total{http_route=\"/x\"} 18\n", $text, '10 + 6 carried + 2');
        self::assertStringContainsString('http_server_request_duration_seconds_count 3', $text);
        self::assertStringContainsString("process_memory_usage_bytes{worker=\"0\"} 1000\nprocess_memory_usage_bytes{worker=\"1\"} 3000\n", $text, 'gauges are not carried');

        $store->remove('0');
        self::assertSame(['1'], $store->workers());
        self::assertStringContainsString("http_server_requests_total{http_route=\"/x\"} 18\n", PrometheusText::render($store->merged()));
    }
}
