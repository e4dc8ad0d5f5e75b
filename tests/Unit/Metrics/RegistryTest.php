<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Metrics;

use Nexus\Metrics\Counter;
use Nexus\Metrics\Exception\InvalidValueException;
use Nexus\Metrics\Exception\LabelValuesException;
use Nexus\Metrics\Exception\MetricDefinitionException;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use PHPUnit\Framework\TestCase;

final class RegistryTest extends TestCase
{
    private const INTERNAL = <<<'TXT'
        # HELP nexus_metrics_dropped_label_sets_total Label sets that found their metric at its series limit and went to the otel_metric_overflow series.
        # TYPE nexus_metrics_dropped_label_sets_total counter
        # HELP nexus_metrics_callback_errors_total Snapshots in which a callback metric threw or returned something malformed.
        # TYPE nexus_metrics_callback_errors_total counter

        TXT;

    public function testCounterGaugeAndHistogramExposeExactly(): void
    {
        $registry = new Registry();
        $requests = $registry->counter('http.server.requests', 'HTTP requests answered.', ['http.request.method', 'http.response.status_code'], '{request}');
        $ok = $requests->labels('GET', '200');
        $ok->inc();
        $ok->inc();
        $requests->labels('POST', '201')->add(3);
        $requests->labels('GET', '200')->inc(); // the same series again
        $memory = $registry->gauge('process.memory.usage', 'Resident memory.', [], 'By');
        $memory->set(1_048_576);
        $memory->add(-576);
        $duration = $registry->histogram('http.server.request.duration', 'Time to answer.', [], 's', [0.1, 1]);
        $duration->observe(0.05);
        $duration->observe(0.1); // le is inclusive
        $duration->observe(0.5);
        $duration->observe(2.0);

        self::assertSame(<<<'TXT'
            # HELP http_server_requests_total HTTP requests answered.
            # TYPE http_server_requests_total counter
            http_server_requests_total{http_request_method="GET",http_response_status_code="200"} 3
            http_server_requests_total{http_request_method="POST",http_response_status_code="201"} 3
            # HELP process_memory_usage_bytes Resident memory.
            # TYPE process_memory_usage_bytes gauge
            process_memory_usage_bytes 1048000
            # HELP http_server_request_duration_seconds Time to answer.
            # TYPE http_server_request_duration_seconds histogram
            http_server_request_duration_seconds_bucket{le="0.1"} 2
            http_server_request_duration_seconds_bucket{le="1"} 3
            http_server_request_duration_seconds_bucket{le="+Inf"} 4
            http_server_request_duration_seconds_sum 2.65
            http_server_request_duration_seconds_count 4

            TXT . self::INTERNAL, PrometheusText::render($registry->snapshot()));
    }

    public function testLabelValuesAndHelpAreEscaped(): void
    {
        $registry = new Registry();
        $registry->counter('odd', "Line one\nline two \\ back", ['v'])->labels("quote \" slash \\ newline \n end")->inc();

        self::assertStringStartsWith(<<<'TXT'
            # HELP odd_total Line one\nline two \\ back
            # TYPE odd_total counter
            odd_total{v="quote \" slash \\ newline \n end"} 1

            TXT, PrometheusText::render($registry->snapshot()));
    }

    public function testPastTheSeriesLimitLabelSetsGoToTheOverflowSeriesAndAreCounted(): void
    {
        $registry = new Registry();
        $routes = $registry->counter('requests', 'Requests by route.', ['http.route'], maxSeries: 2);
        $routes->labels('/a')->inc();
        $routes->labels('/b')->inc();
        $routes->labels('/c')->inc();
        $routes->labels('/d')->add(2);
        $routes->labels('/a')->inc(); // still its own series

        self::assertSame(2, $routes->seriesCount());
        $text = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString(<<<'TXT'
            requests_total{http_route="/a"} 2
            requests_total{http_route="/b"} 1
            requests_total{otel_metric_overflow="true"} 3

            TXT, $text);
        self::assertStringContainsString('nexus_metrics_dropped_label_sets_total{metric="requests_total"} 2', $text);
    }

    public function testDeclaringTheSameMetricTwiceReturnsIt(): void
    {
        $registry = new Registry();
        $first = $registry->counter('jobs', 'Jobs.', ['kind']);

        self::assertSame($first, $registry->counter('jobs', 'Jobs.', ['kind']));
        self::assertSame($first, $registry->get('jobs_total'));
    }

    public function testAConflictingDefinitionIsRefused(): void
    {
        $registry = new Registry();
        $registry->counter('jobs', 'Jobs.', ['kind']);

        $this->expectException(MetricDefinitionException::class);
        $this->expectExceptionMessage("Metric 'jobs_total' (from 'jobs') is already registered with a different definition");
        $registry->counter('jobs', 'Jobs.', ['queue']);
    }

    public function testReservedAndDuplicateLabelsAreRefused(): void
    {
        $registry = new Registry();
        foreach ([['worker'], ['le'], ['otel.metric.overflow'], ['a', 'a']] as $labels) {
            try {
                $registry->gauge('g' . \count($labels) . $labels[0], 'G.', $labels);
                self::fail('accepted labels ' . implode(',', $labels));
            } catch (MetricDefinitionException $e) {
                self::assertMatchesRegularExpression('/reserved|twice/', $e->getMessage());
            }
        }
    }

    public function testAMetricNeedsHelp(): void
    {
        $this->expectException(MetricDefinitionException::class);
        $this->expectExceptionMessage('needs a help text');
        (new Registry())->counter('x', ' ');
    }

    public function testHistogramBucketsMustIncrease(): void
    {
        $this->expectException(MetricDefinitionException::class);
        $this->expectExceptionMessage('strictly increasing');
        (new Registry())->histogram('h', 'H.', [], 's', [1, 1]);
    }

    public function testWrongLabelValuesAreRefused(): void
    {
        $counter = (new Registry())->counter('c', 'C.', ['a', 'b']);
        foreach ([['x'], ['x', 'y', 'z'], ["\xff", 'y'], [str_repeat('x', 257), 'y']] as $values) {
            try {
                $counter->labels(...$values);
                self::fail('accepted ' . \count($values) . ' values');
            } catch (LabelValuesException $e) {
                self::assertStringContainsString("'c_total'", $e->getMessage());
            }
        }
        self::assertSame(0, $counter->seriesCount());
    }

    public function testACounterOnlyGoesUpAndAHistogramRefusesNaN(): void
    {
        $registry = new Registry();
        $counter = $registry->counter('c', 'C.');
        $counter->add(1.5);
        foreach ([-1, \NAN] as $bad) {
            try {
                $counter->add($bad);
                self::fail('accepted ' . $bad);
            } catch (InvalidValueException) {
            }
        }
        $histogram = $registry->histogram('h', 'H.', [], 's', [1]);
        try {
            $histogram->observe(\NAN);
            self::fail('accepted NaN');
        } catch (InvalidValueException) {
        }

        $text = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString("c_total 1.5\n", $text);
        self::assertStringContainsString("h_seconds_count 0\n", $text);
    }

    public function testCallbackMetricsAreReadAtSnapshotTime(): void
    {
        $registry = new Registry();
        $live = 3;
        $registry->gaugeCallback('nexus.actors.live', 'Live actors.', static function () use (&$live): int {
            return $live;
        }, unit: '{actor}');
        $registry->counterCallback('nexus.dead_letters', 'Dead letters by reason.', static fn(): array => [[['mailbox full'], 2], [['no such actor'], 5]], ['reason']);

        self::assertStringContainsString("nexus_actors_live 3\n", PrometheusText::render($registry->snapshot()));
        $live = 7;
        $text = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString("nexus_actors_live 7\n", $text);
        self::assertStringContainsString("nexus_dead_letters_total{reason=\"mailbox full\"} 2\nnexus_dead_letters_total{reason=\"no such actor\"} 5\n", $text);
    }

    public function testAFailingCallbackIsCountedAndDoesNotSinkTheSnapshot(): void
    {
        $registry = new Registry();
        $registry->gaugeCallback('broken', 'Throws.', static fn(): never => throw new \RuntimeException('disk gone'));
        $registry->gaugeCallback('malformed', 'Bad rows.', static fn(): array => [[['a'], 1], ['not a row']], ['k']);
        $registry->gaugeCallback('fine', 'Works.', static fn(): float => 0.25);

        $text = PrometheusText::render($registry->snapshot());

        self::assertStringContainsString("# TYPE broken gauge\n# HELP malformed", $text);
        self::assertStringContainsString("malformed{k=\"a\"} 1\n", $text, 'what was read before the fault is kept');
        self::assertStringContainsString("fine 0.25\n", $text);
        self::assertStringContainsString("nexus_metrics_callback_errors_total{metric=\"broken\"} 1\nnexus_metrics_callback_errors_total{metric=\"malformed\"} 1\n", $text);
        self::assertSame('disk gone', $registry->callbackErrors()['broken']);
    }

    public function testCallbackRowsPastTheLimitAreAddedIntoOverflow(): void
    {
        $registry = new Registry();
        $registry->gaugeCallback('depth', 'Mailbox depth.', static fn(): array => [[['a'], 5], [['b'], 4], [['c'], 3]], ['kind'], maxSeries: 2);

        $text = PrometheusText::render($registry->snapshot());

        self::assertStringContainsString("depth{kind=\"a\"} 5\ndepth{kind=\"b\"} 4\ndepth{otel_metric_overflow=\"true\"} 3\n", $text);
        self::assertStringContainsString('nexus_metrics_dropped_label_sets_total{metric="depth"} 1', $text);
    }

    public function testLabelFreeShortcutsUseOneSeries(): void
    {
        $registry = new Registry();
        $counter = $registry->counter('c', 'C.');
        $counter->inc();
        $counter->add(2);

        self::assertInstanceOf(Counter::class, $counter);
        self::assertSame(3, $counter->labels()->value());
        self::assertSame(1, $counter->seriesCount());
    }

    public function testNumbersAreWrittenAsPrometheusReadsThem(): void
    {
        self::assertSame('3', PrometheusText::number(3));
        self::assertSame('3', PrometheusText::number(3.0));
        self::assertSame('0', PrometheusText::number(-0.0));
        self::assertSame('0.1', PrometheusText::number(0.1));
        self::assertSame('0.30000000000000004', PrometheusText::number(0.1 + 0.2));
        self::assertSame('1.0e+20', PrometheusText::number(1e20));
        self::assertSame('+Inf', PrometheusText::number(\INF));
        self::assertSame('-Inf', PrometheusText::number(-\INF));
        self::assertSame('NaN', PrometheusText::number(\NAN));
    }

    public function testTheSnapshotIsPlainArrays(): void
    {
        $registry = new Registry();
        $registry->histogram('h', 'H.', ['k'], 's', [1])->labels('x')->observe(0.5);
        $snapshot = $registry->snapshot();

        self::assertSame($snapshot, unserialize(serialize($snapshot), ['allowed_classes' => false]));
        self::assertSame([['x'], [1, 0], 0.5], $snapshot['families']['h_seconds']['series'][0]);
        self::assertSame($registry->incarnation, $snapshot['incarnation']);
    }
}
