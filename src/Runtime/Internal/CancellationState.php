<?php

declare(strict_types=1);

namespace Nexus\Runtime\Internal;

use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Exception\CancelledException;

/**
 * The shared state behind the cancellations in Nexus\Runtime: the callbacks waiting for the
 * request and, once made, the exception that carries its reason.
 *
 * @internal
 */
final class CancellationState implements Cancellation
{
    /** @var array<int, \Closure(CancelledException): void> */
    private array $callbacks = [];
    private int $nextId = 0;
    private ?CancelledException $exception = null;

    /**
     * @param \Closure(\Throwable): void $onCallbackError where an exception thrown by a callback goes
     */
    public function __construct(private readonly \Closure $onCallbackError) {}

    public function subscribe(\Closure $callback): int
    {
        $id = $this->nextId++;
        if ($this->exception !== null) {
            $this->call($callback, $this->exception);

            return $id;
        }
        $this->callbacks[$id] = $callback;

        return $id;
    }

    public function unsubscribe(int $id): void
    {
        unset($this->callbacks[$id]);
    }

    public function isRequested(): bool
    {
        return $this->exception !== null;
    }

    public function throwIfRequested(): void
    {
        if ($this->exception !== null) {
            throw $this->exception;
        }
    }

    /**
     * Requests cancellation; returns false, changing nothing, when it already was.
     */
    public function cancel(CancelledException $exception): bool
    {
        if ($this->exception !== null) {
            return false;
        }
        $this->exception = $exception;
        $callbacks = $this->callbacks;
        $this->callbacks = [];
        foreach ($callbacks as $callback) {
            $this->call($callback, $exception);
        }

        return true;
    }

    /**
     * @param \Closure(CancelledException): void $callback
     */
    private function call(\Closure $callback, CancelledException $exception): void
    {
        try {
            $callback($exception);
        } catch (\Throwable $e) {
            ($this->onCallbackError)($e);
        }
    }
}
