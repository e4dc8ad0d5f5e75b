<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\MetricDefinitionException;

/**
 * The metrics of one process: declare each metric once (at boot), keep the series handles, and
 * take a snapshot() when someone scrapes.
 *
 *     $metrics = new Registry();
 *     $requests = $metrics->counter('http.server.requests', 'HTTP requests answered', ['http.request.method'], '{request}');
 *     $get = $requests->labels('GET');      // once, at boot or on first use
 *     $get->inc();                          // on the hot path: one increment, nothing allocated
 *
 * Names are OpenTelemetry-style and exposed under their Prometheus translation (MetricName):
 * `http.server.request.duration` with unit `s` becomes http_server_request_duration_seconds; a
 * counter gets `_total`. Declaring the same name again with the same type, labels and buckets
 * returns the metric already there; a different definition under a taken name throws.
 *
 * Bounds: at most MAX_METRICS metrics, and per metric at most $maxSeries label combinations
 * (default 500; see Metric for what happens past it). The label names `worker` (added by the
 * master when it merges workers), `le` and `otel_metric_overflow` are reserved.
 *
 * snapshot() returns plain arrays, cheap to encode and send from a worker to the master:
 *
 *     ['incarnation' => 'pid-random',             // changes when the process is replaced
 *      'families' => [prometheus name => [
 *          'type' => 'counter'|'gauge'|'histogram', 'help' => string,
 *          'labels' => list<label name>, 'aggregation' => 'sum'|'worker', 'limit' => int,
 *          'buckets' => list<float>,               // histograms: upper bounds, +Inf implied
 *          'series' => list<[list<label value>, value]>   // histograms: [values, list<int> counts per bucket (+Inf last, not cumulative), float sum]
 *          'overflowLabels' => list<label name>, 'overflow' => list of series as above, exposed with otel_metric_overflow="true"
 *      ]]]
 *
 * @phpstan-import-type Families from Snapshot
 */
final class Registry
{
    public const MAX_METRICS = 1000;
    public const DEFAULT_MAX_SERIES = 500;
    /** Label names a metric may not declare. */
    public const RESERVED_LABELS = ['worker', 'le', 'otel_metric_overflow'];

    public readonly string $incarnation;
    /** @var array<string, Metric<CounterSeries>|Metric<GaugeSeries>|Metric<HistogramSeries>|CallbackMetric> by Prometheus name */
    private array $metrics = [];
    /** @var array<string, string> definition signature by Prometheus name */
    private array $signatures = [];
    private readonly Counter $dropped;
    private readonly Counter $callbackErrors;
    /** @var array<string, string> the last error of each callback metric, by name */
    private array $lastErrors = [];

    public function __construct(public readonly int $defaultMaxSeries = self::DEFAULT_MAX_SERIES)
    {
        if ($defaultMaxSeries < 1) {
            throw new MetricDefinitionException("A registry's default series limit must be at least 1, got {$defaultMaxSeries}.");
        }
        $this->incarnation = getmypid() . '-' . bin2hex(random_bytes(4));
        $this->dropped = $this->counter(
            'nexus.metrics.dropped_label_sets',
            'Label sets that found their metric at its series limit and went to the otel_metric_overflow series.',
            ['metric'],
            maxSeries: self::MAX_METRICS,
        );
        $this->callbackErrors = $this->counter(
            'nexus.metrics.callback_errors',
            'Snapshots in which a callback metric threw or returned something malformed.',
            ['metric'],
            maxSeries: self::MAX_METRICS,
        );
    }

    /**
     * @param list<string> $labels OTel attribute keys (http.request.method) or Prometheus label names
     * @param string       $unit   UCUM: s, ms, By, 1, or an annotation such as {request}
     */
    public function counter(string $name, string $help, array $labels = [], string $unit = '', ?int $maxSeries = null, Aggregation $aggregation = Aggregation::Sum): Counter
    {
        [$promName, $labelNames, $limit, $existing] = $this->define($name, $help, $labels, $unit, $maxSeries, MetricType::Counter, $aggregation, '');
        if ($existing !== null) {
            \assert($existing instanceof Counter);

            return $existing;
        }

        return $this->metrics[$promName] = new Counter($promName, $help, $labelNames, $limit, $aggregation, $this->dropCounter(...));
    }

    /**
     * @param list<string> $labels
     */
    public function gauge(string $name, string $help, array $labels = [], string $unit = '', ?int $maxSeries = null, Aggregation $aggregation = Aggregation::PerWorker): Gauge
    {
        [$promName, $labelNames, $limit, $existing] = $this->define($name, $help, $labels, $unit, $maxSeries, MetricType::Gauge, $aggregation, '');
        if ($existing !== null) {
            \assert($existing instanceof Gauge);

            return $existing;
        }

        return $this->metrics[$promName] = new Gauge($promName, $help, $labelNames, $limit, $aggregation, $this->dropCounter(...));
    }

    /**
     * @param list<string>    $labels
     * @param list<int|float> $buckets upper bounds, increasing (+Inf is added)
     */
    public function histogram(string $name, string $help, array $labels = [], string $unit = 's', array $buckets = Buckets::SECONDS, ?int $maxSeries = null, Aggregation $aggregation = Aggregation::Sum): Histogram
    {
        $bounds = Buckets::check($buckets);
        [$promName, $labelNames, $limit, $existing] = $this->define($name, $help, $labels, $unit, $maxSeries, MetricType::Histogram, $aggregation, implode(',', $bounds));
        if ($existing !== null) {
            \assert($existing instanceof Histogram);

            return $existing;
        }

        return $this->metrics[$promName] = new Histogram($promName, $help, $labelNames, $limit, $aggregation, $this->dropCounter(...), $bounds);
    }

    /**
     * A gauge read at snapshot time: $read returns a number, or (with labels) rows of
     * [list<string> $labelValues, int|float $value]. See CallbackMetric.
     *
     * @param list<string>      $labels
     * @param \Closure(): mixed $read
     */
    public function gaugeCallback(string $name, string $help, \Closure $read, array $labels = [], string $unit = '', ?int $maxSeries = null, Aggregation $aggregation = Aggregation::PerWorker): CallbackMetric
    {
        return $this->callback(MetricType::Gauge, $name, $help, $read, $labels, $unit, $maxSeries, $aggregation);
    }

    /**
     * A counter read at snapshot time from something that already counts (it must never go
     * down while the process lives). See gaugeCallback() for what $read returns.
     *
     * @param list<string>      $labels
     * @param \Closure(): mixed $read
     */
    public function counterCallback(string $name, string $help, \Closure $read, array $labels = [], string $unit = '', ?int $maxSeries = null, Aggregation $aggregation = Aggregation::Sum): CallbackMetric
    {
        return $this->callback(MetricType::Counter, $name, $help, $read, $labels, $unit, $maxSeries, $aggregation);
    }

    /**
     * A histogram read at snapshot time from series something else observes into (a
     * HistogramSeries it owns, with the same bounds): $read returns rows of
     * [list<string> $labelValues, list<int> $counts, float $sum] (HistogramSeries::counts(),
     * sum()). See CallbackMetric.
     *
     * @param list<string>      $labels
     * @param list<int|float>   $buckets
     * @param \Closure(): mixed $read
     */
    public function histogramCallback(string $name, string $help, \Closure $read, array $labels = [], string $unit = 's', array $buckets = Buckets::SECONDS, ?int $maxSeries = null, Aggregation $aggregation = Aggregation::Sum): CallbackMetric
    {
        return $this->callback(MetricType::Histogram, $name, $help, $read, $labels, $unit, $maxSeries, $aggregation, Buckets::check($buckets));
    }

    /**
     * The metric registered under this Prometheus name (after translation), if any.
     *
     * @return Metric<CounterSeries>|Metric<GaugeSeries>|Metric<HistogramSeries>|CallbackMetric|null
     */
    public function get(string $prometheusName): Metric|CallbackMetric|null
    {
        return $this->metrics[$prometheusName] ?? null;
    }

    /**
     * What the last failing callback of each metric said (for a health detail or a log line).
     *
     * @return array<string, string>
     */
    public function callbackErrors(): array
    {
        return $this->lastErrors;
    }

    /**
     * Every metric as plain arrays; callback metrics are read now. The format is described in
     * the class comment.
     *
     * @return array{incarnation: string, families: Families}
     */
    public function snapshot(): array
    {
        $families = [];
        foreach ($this->metrics as $name => $metric) {
            if ($metric !== $this->dropped && $metric !== $this->callbackErrors) {
                $families[$name] = $metric->snapshot();
            }
        }
        // Last, so that they include what the callbacks above just reported.
        $families[$this->dropped->name] = $this->dropped->snapshot();
        $families[$this->callbackErrors->name] = $this->callbackErrors->snapshot();

        return ['incarnation' => $this->incarnation, 'families' => $families];
    }

    /**
     * @param list<string>      $labels
     * @param \Closure(): mixed $read
     * @param list<float>|null  $bounds
     */
    private function callback(MetricType $type, string $name, string $help, \Closure $read, array $labels, string $unit, ?int $maxSeries, Aggregation $aggregation, ?array $bounds = null): CallbackMetric
    {
        [$promName, $labelNames, $limit, $existing] = $this->define($name, $help, $labels, $unit, $maxSeries, $type, $aggregation, 'callback');
        if ($existing !== null) {
            throw new MetricDefinitionException("Callback metric '{$promName}' is already registered: a second reader would be ignored. Register it once and read everything it needs in one closure.");
        }

        return $this->metrics[$promName] = new CallbackMetric($promName, $help, $type, $labelNames, $limit, $aggregation, $read, $this->dropCounter(...), $this->callbackFailed(...), $bounds);
    }

    /**
     * @param list<string> $labels
     *
     * @return array{string, list<string>, int, Metric<CounterSeries>|Metric<GaugeSeries>|Metric<HistogramSeries>|CallbackMetric|null}
     */
    private function define(string $name, string $help, array $labels, string $unit, ?int $maxSeries, MetricType $type, Aggregation $aggregation, string $extra): array
    {
        $promName = MetricName::prometheus($name, $unit, $type);
        if (trim($help) === '' || str_contains($help, "\0") || !mb_check_encoding($help, 'UTF-8')) {
            throw new MetricDefinitionException("Metric '{$promName}' needs a help text: one line of UTF-8 saying what it counts.");
        }
        $labelNames = [];
        foreach ($labels as $label) {
            $labelName = MetricName::label($label);
            if (\in_array($labelName, self::RESERVED_LABELS, true)) {
                throw new MetricDefinitionException("Metric '{$promName}' declares the label '{$labelName}', which is reserved (" . implode(', ', self::RESERVED_LABELS) . '); choose another name.');
            }
            if (\in_array($labelName, $labelNames, true)) {
                throw new MetricDefinitionException("Metric '{$promName}' declares the label '{$labelName}' twice.");
            }
            $labelNames[] = $labelName;
        }
        $limit = $maxSeries ?? $this->defaultMaxSeries;
        if ($limit < 1) {
            throw new MetricDefinitionException("Metric '{$promName}' needs a series limit of at least 1, got {$limit}.");
        }
        $signature = $type->value . '|' . implode(',', $labelNames) . '|' . $aggregation->value . '|' . $extra;
        if (isset($this->signatures[$promName])) {
            if ($this->signatures[$promName] !== $signature || $extra === 'callback') {
                throw new MetricDefinitionException("Metric '{$promName}' (from '{$name}') is already registered with a different definition ({$this->signatures[$promName]}); use another name or the same type, labels and buckets.");
            }

            return [$promName, $labelNames, $limit, $this->metrics[$promName]];
        }
        if (\count($this->metrics) >= self::MAX_METRICS) {
            throw new MetricDefinitionException(\sprintf('A registry holds at most %d metrics; %s would be one more. Metrics are declared once at boot, not per request.', self::MAX_METRICS, $promName));
        }
        $this->signatures[$promName] = $signature;

        return [$promName, $labelNames, $limit, null];
    }

    private function dropCounter(string $metric): void
    {
        $this->dropped->labels($metric)->inc();
    }

    private function callbackFailed(string $metric, string $error): void
    {
        $this->callbackErrors->labels($metric)->inc();
        $this->lastErrors[$metric] = $error;
    }
}
