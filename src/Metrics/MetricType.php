<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * The kinds of metric the registry keeps, named as the Prometheus text format names them.
 */
enum MetricType: string
{
    /** Only goes up (from zero, at process start); exposed with a `_total` suffix. */
    case Counter = 'counter';
    /** Goes up and down: set, or read from a callback at scrape time. */
    case Gauge = 'gauge';
    /** Observations counted into fixed buckets, with their sum and count. */
    case Histogram = 'histogram';
}
