<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * How the master combines one metric from several workers' snapshots (SnapshotMerger):
 *
 * - Sum: series with the same labels are added up over the workers (counter values, histogram
 *   bucket counts and sums, gauge values), giving one total without a `worker` label. The
 *   default for counters and histograms: "requests served" and "request duration" are
 *   questions about the server, and a `worker` label would multiply their series by the
 *   number of workers.
 * - PerWorker: every series keeps its value and gets a `worker` label (first). The default for
 *   gauges (memory, CPU, mailbox depth: adding them up across processes rarely means
 *   anything) and the choice for a counter where "which worker" is the question (restarts).
 */
enum Aggregation: string
{
    case Sum = 'sum';
    case PerWorker = 'worker';
}
