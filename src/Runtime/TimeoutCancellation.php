<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Internal\CancellationState;

/**
 * A cancellation requested by itself $seconds after it was made; the CancelledException's previous
 * exception is a TimeoutException. Its timer does not keep the loop running, and is removed when
 * this object is dropped.
 */
final class TimeoutCancellation implements Cancellation
{
    private readonly CancellationState $state;
    private ?int $timer;

    public function __construct(
        private readonly Loop $loop,
        float $seconds,
        string $message = 'The operation timed out',
    ) {
        if (!($seconds >= 0.0) || is_infinite($seconds)) {
            throw new \InvalidArgumentException("A timeout cancellation needs a finite number of seconds, got {$seconds}.");
        }
        $state = $this->state = new CancellationState($loop->reportError(...));
        $this->timer = $loop->delay($seconds, static function () use ($state, $message, $seconds): void {
            $timeout = new TimeoutException(\sprintf('%s after %.3f s.', $message, $seconds));
            $state->cancel(new CancelledException($timeout->getMessage(), 0, $timeout));
        });
        $loop->unreference($this->timer);
    }

    public function __destruct()
    {
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
    }

    public function subscribe(\Closure $callback): int
    {
        return $this->state->subscribe($callback);
    }

    public function unsubscribe(int $id): void
    {
        $this->state->unsubscribe($id);
    }

    public function isRequested(): bool
    {
        return $this->state->isRequested();
    }

    public function throwIfRequested(): void
    {
        $this->state->throwIfRequested();
    }
}
