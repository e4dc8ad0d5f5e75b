<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Io\Connection;
use Nexus\Runtime\Loop;

/**
 * @internal one direction of a LatencyProxy connection: chunks read from the source are written
 * to the target $delay seconds later, in order; the source's end is passed on after its last chunk.
 */
final class DelayedPipe
{
    /** @var \SplQueue<array{float, string|null}> due time and bytes (null = end of stream) */
    private \SplQueue $queue;
    private ?Connection $source = null;
    private ?Connection $target = null;
    private ?int $timer = null;
    private bool $done = false;

    public function __construct(private readonly Loop $loop, ?Connection $source, private readonly float $delay)
    {
        $this->queue = new \SplQueue();
        if ($source !== null) {
            $this->attachSource($source);
        }
    }

    public function attachSource(Connection $source): void
    {
        $this->source = $source;
        $source->onData(function (string $bytes): void {
            $this->push($bytes);
        });
        $source->onEnd(function (): void {
            $this->push(null);
        });
    }

    public function attachTarget(Connection $target): void
    {
        $this->target = $target;
        $target->onDrain(function (): void {
            $this->source?->resume();
        });
        $this->schedule();
    }

    /**
     * The source closed: what is queued still goes out, then the target is ended.
     */
    public function sourceClosed(): void
    {
        if (!$this->done) {
            $this->push(null);
        }
    }

    /**
     * The target closed: nothing more can be delivered in this direction. The source stays open
     * for what the other direction still has to deliver to it.
     */
    public function targetClosed(): void
    {
        $this->done = true;
        $this->cancelTimer();
        $this->queue = new \SplQueue();
    }

    public function closeBoth(): void
    {
        $this->done = true;
        $this->cancelTimer();
        $this->source?->close();
        $this->target?->close();
    }

    private function cancelTimer(): void
    {
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
    }

    private function push(?string $bytes): void
    {
        if ($this->done) {
            return;
        }
        if ($bytes === null) {
            $this->done = true;
        }
        $this->queue->enqueue([hrtime(true) / 1e9 + $this->delay, $bytes]);
        if ($this->timer === null) {
            $this->schedule();
        }
    }

    private function schedule(): void
    {
        if ($this->target === null || $this->queue->isEmpty() || $this->timer !== null) {
            return;
        }
        $wait = max(0.0, $this->queue->bottom()[0] - hrtime(true) / 1e9);
        $this->timer = $this->loop->delay($wait, function (): void {
            $this->timer = null;
            $this->deliver();
        });
    }

    private function deliver(): void
    {
        $target = $this->target;
        if ($target === null) {
            return;
        }
        $now = hrtime(true) / 1e9;
        while (!$this->queue->isEmpty() && $this->queue->bottom()[0] <= $now) {
            [, $bytes] = $this->queue->dequeue();
            if (!$target->isWritable()) {
                return;
            }
            if ($bytes === null) {
                $target->end();

                return;
            }
            if (!$target->write($bytes)) {
                // Too much pending at the target: stop reading until it drains.
                $this->source?->pause();
            }
        }
        $this->schedule();
    }
}
