<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use OpenTelemetry\Context\ContextInterface;
use OpenTelemetry\SDK\Common\Future\CancellationInterface;
use OpenTelemetry\SDK\Trace\ReadableSpanInterface;
use OpenTelemetry\SDK\Trace\ReadWriteSpanInterface;
use OpenTelemetry\SDK\Trace\SpanDataInterface;
use OpenTelemetry\SDK\Trace\SpanExporterInterface;
use OpenTelemetry\SDK\Trace\SpanProcessorInterface;
use Psr\Log\LoggerInterface;

/**
 * The batch span processor of a Nexus worker: a span that ends is queued, and batches are
 * exported from a fiber of their own on the loop, so that exporting never blocks the handler
 * or actor that ended the span, nor the worker (the exporter's HTTP request waits only that
 * fiber). The SDK's BatchSpanProcessor exports inside end() when a batch is full, in the
 * caller, which would stall it for a network round trip.
 *
 * Bounds and failures:
 *  - The queue holds at most $maxQueueSize spans (OTEL_BSP_MAX_QUEUE_SIZE, 2,048). At the bound
 *    a new span is dropped and counted (droppedSpans()), with one warning per episode; the
 *    spans already queued go on being exported.
 *  - One export at a time, of at most $maxExportBatchSize spans; a batch leaves once it is full,
 *    else $scheduleDelay seconds after the first span of the queue arrived. The export's HTTP
 *    request has the exporter's timeout (TelemetryConfig::$exportTimeout).
 *  - A failed export (the collector refused, did not answer in time, could not be reached) is
 *    logged (a warning, at most one per FAILURE_LOG_INTERVAL seconds, with the count meanwhile)
 *    and its spans are dropped and counted (failedSpans()): a collector that is down never makes
 *    the queue grow beyond its bound, and never reaches the request or the actor.
 *  - The timer is unreferenced: it never keeps a worker that is otherwise done alive. flush()
 *    (called by Telemetry::shutdown()) exports what is queued before the worker exits.
 */
final class LoopSpanProcessor implements SpanProcessorInterface
{
    public const FAILURE_LOG_INTERVAL = 10.0;

    /** @var list<SpanDataInterface> */
    private array $queue = [];
    private ?int $timer = null;
    private bool $exporting = false;
    private bool $closed = false;
    /** flush() is waiting: exports do not stop at a partial batch. */
    private bool $draining = false;
    private int $exported = 0;
    private int $dropped = 0;
    private int $failed = 0;
    private bool $dropping = false;
    private float $lastFailureLog = -\INF;
    private int $failuresUnlogged = 0;
    /** @var Future<null>|null */
    private ?Future $running = null;

    public function __construct(
        private readonly Loop $loop,
        private readonly SpanExporterInterface $exporter,
        private readonly LoggerInterface $logger,
        private readonly int $maxQueueSize = 2048,
        private readonly int $maxExportBatchSize = 512,
        private readonly float $scheduleDelay = 5.0,
        /** Where the reason of a failed export is found (the SDK's exporter only says false). */
        private readonly ?RecordingTransport $transport = null,
    ) {}

    public function onStart(ReadWriteSpanInterface $span, ContextInterface $parentContext): void {}

    public function onEnd(ReadableSpanInterface $span): void
    {
        if ($this->closed || !$span->getContext()->isSampled()) {
            return;
        }
        if (\count($this->queue) >= $this->maxQueueSize) {
            ++$this->dropped;
            if (!$this->dropping) {
                $this->dropping = true;
                $this->logger->warning('Tracing: the span queue is full ({size} spans, OTEL_BSP_MAX_QUEUE_SIZE): new spans are dropped until the exporter catches up.', ['size' => $this->maxQueueSize]);
            }

            return;
        }
        $this->queue[] = $span->toSpanData();
        if (\count($this->queue) >= $this->maxExportBatchSize) {
            $this->start();
        } elseif ($this->timer === null && !$this->exporting) {
            $this->timer = $this->loop->delay($this->scheduleDelay, function (): void {
                $this->timer = null;
                $this->start();
            });
            $this->loop->unreference($this->timer);
        }
    }

    /**
     * Exports everything queued now, batch after batch; the future settles once all of it has
     * left (or failed). Await it from a fiber or from top-level code (it runs the loop).
     *
     * @return Future<null>
     */
    public function flush(): Future
    {
        if ($this->queue === [] && !$this->exporting) {
            return Future::fulfilled($this->loop, null);
        }

        return $this->loop->async(function (): null {
            $this->draining = true;
            try {
                while ($this->queue !== [] || $this->exporting) {
                    if (!$this->exporting) {
                        $this->start();
                    }
                    $running = $this->running;
                    if ($running === null) {
                        break;
                    }
                    $running->await();
                }
            } finally {
                $this->draining = false;
            }

            return null;
        });
    }

    public function forceFlush(?CancellationInterface $cancellation = null): bool
    {
        try {
            $this->flush()->await();

            return true;
        } catch (\Throwable) {
            return false;
        }
    }

    public function shutdown(?CancellationInterface $cancellation = null): bool
    {
        if ($this->closed) {
            return false;
        }
        $flushed = $this->forceFlush($cancellation);
        $this->closed = true;
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }

        return $this->exporter->shutdown() && $flushed;
    }

    /** Spans handed to the exporter and accepted by it. */
    public function exportedSpans(): int
    {
        return $this->exported;
    }

    /** Spans dropped because the queue was full. */
    public function droppedSpans(): int
    {
        return $this->dropped;
    }

    /** Spans of exports that failed. */
    public function failedSpans(): int
    {
        return $this->failed;
    }

    public function queuedSpans(): int
    {
        return \count($this->queue);
    }

    private function start(): void
    {
        if ($this->exporting) {
            return; // the running export goes on while a full batch is queued
        }
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
        $this->exporting = true;
        $this->running = $this->loop->async($this->exportAll(...));
        $this->running->ignore(); // exportAll() catches and logs its own failures
    }

    private function exportAll(): null
    {
        try {
            while ($this->queue !== []) {
                $batch = \array_slice($this->queue, 0, $this->maxExportBatchSize);
                $this->queue = \array_slice($this->queue, \count($batch));
                $this->exportBatch($batch);
                if (\count($this->queue) < $this->maxExportBatchSize && !$this->draining) {
                    break; // the rest waits for the timer, to be sent with what comes meanwhile
                }
            }
        } finally {
            $this->exporting = false;
            $this->running = null;
            if ($this->dropping && \count($this->queue) < $this->maxQueueSize) {
                $this->dropping = false;
                $this->logger->warning('Tracing: the span queue has room again; {dropped} spans were dropped so far.', ['dropped' => $this->dropped]);
            }
            if ($this->queue !== [] && $this->timer === null && !$this->closed) {
                $this->timer = $this->loop->delay($this->scheduleDelay, function (): void {
                    $this->timer = null;
                    $this->start();
                });
                $this->loop->unreference($this->timer);
            }
        }

        return null;
    }

    /**
     * @param list<SpanDataInterface> $batch
     */
    private function exportBatch(array $batch): void
    {
        $error = null;
        try {
            $ok = (bool) $this->exporter->export($batch)->await();
        } catch (\Throwable $e) {
            $ok = false;
            $error = $e;
        }
        if ($ok) {
            $this->exported += \count($batch);

            return;
        }
        $error ??= $this->transport?->lastError;
        $this->failed += \count($batch);
        ++$this->failuresUnlogged;
        $now = $this->loop->now();
        if ($now - $this->lastFailureLog >= self::FAILURE_LOG_INTERVAL) {
            $this->logger->warning('Tracing: {count} export(s) to the OTLP collector failed ({failed} spans dropped so far){reason}.', [
                'count' => $this->failuresUnlogged,
                'failed' => $this->failed,
                'reason' => $error === null ? '' : ': ' . $error->getMessage(),
            ]);
            $this->lastFailureLog = $now;
            $this->failuresUnlogged = 0;
        }
    }
}
