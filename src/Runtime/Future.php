<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\DeadlockException;
use Nexus\Runtime\Exception\TimeoutException;

/**
 * A value that arrives later. Inside a fiber (an actor handler, an HTTP handler, Loop::async)
 * await() suspends only that fiber and the rest of the loop runs on; from top-level code it runs
 * the loop until the future settles.
 *
 * @template-covariant T
 */
final class Future
{
    private const PENDING = 0;
    private const FULFILLED = 1;
    private const REJECTED = 2;

    private int $state = self::PENDING;
    private mixed $value = null;
    private ?\Throwable $error = null;
    /** @var list<\Closure(?\Throwable, mixed): void> */
    private array $callbacks = [];

    /**
     * @internal use a Deferred, Loop::async(), Future::fulfilled() or Future::rejected()
     */
    public function __construct(private readonly Loop $loop) {}

    /**
     * @template V
     *
     * @param V $value
     *
     * @return Future<V>
     */
    public static function fulfilled(Loop $loop, mixed $value): self
    {
        $future = new self($loop);
        $future->settle(null, $value);

        return $future;
    }

    /**
     * @return Future<never>
     */
    public static function rejected(Loop $loop, \Throwable $error): self
    {
        $future = new self($loop);
        $future->settle($error, null);

        return $future;
    }

    public function isSettled(): bool
    {
        return $this->state !== self::PENDING;
    }

    public function isFulfilled(): bool
    {
        return $this->state === self::FULFILLED;
    }

    public function isRejected(): bool
    {
        return $this->state === self::REJECTED;
    }

    /**
     * Calls $callback(?Throwable $error, mixed $value) once the future settles (at once if it has).
     *
     * @param \Closure(?\Throwable, mixed): void $callback
     */
    public function onSettle(\Closure $callback): void
    {
        if ($this->state === self::PENDING) {
            $this->callbacks[] = $callback;

            return;
        }
        $this->invoke($callback);
    }

    /**
     * Waits for the value. Throws the failure the future was rejected with, or a TimeoutException
     * when $timeout seconds pass first (the future itself is left as it is).
     *
     * @phpstan-impure the world moves on while it waits
     *
     * @return T
     */
    public function await(?float $timeout = null): mixed
    {
        if ($this->state === self::PENDING) {
            if (\Fiber::getCurrent() === null) {
                $this->runLoopUntilSettled($timeout);
            } else {
                $this->suspendUntilSettled($timeout);
            }
        }
        if ($this->state === self::REJECTED) {
            \assert($this->error !== null);
            throw $this->error;
        }

        /** @var T */
        return $this->value;
    }

    /**
     * @internal called by Deferred
     */
    public function settle(?\Throwable $error, mixed $value): bool
    {
        if ($this->state !== self::PENDING) {
            return false;
        }
        if ($error !== null) {
            $this->state = self::REJECTED;
            $this->error = $error;
        } else {
            $this->state = self::FULFILLED;
            $this->value = $value;
        }
        $callbacks = $this->callbacks;
        $this->callbacks = [];
        foreach ($callbacks as $callback) {
            $this->invoke($callback);
        }

        return true;
    }

    /**
     * @param \Closure(?\Throwable, mixed): void $callback
     */
    private function invoke(\Closure $callback): void
    {
        try {
            $callback($this->error, $this->value);
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
        }
    }

    private function suspendUntilSettled(?float $timeout): void
    {
        $fiber = \Fiber::getCurrent();
        \assert($fiber !== null);
        $loop = $this->loop;
        $waiting = true;
        $wake = static function () use ($fiber, $loop, &$waiting): void {
            if ($waiting) {
                $waiting = false;
                $loop->defer(static function () use ($fiber): void {
                    if ($fiber->isSuspended()) {
                        $fiber->resume();
                    }
                });
            }
        };
        $this->callbacks[] = static function () use ($wake): void {
            $wake();
        };
        $timer = $timeout === null ? null : $loop->delay($timeout, static function () use ($wake): void {
            $wake();
        });
        $loop->scheduler()->suspend();
        if ($timer !== null) {
            $loop->cancel($timer);
        }
        if ($this->state === self::PENDING) {
            throw new TimeoutException(sprintf('Gave up waiting for a future after %.3f s.', $timeout ?? 0.0));
        }
    }

    private function runLoopUntilSettled(?float $timeout): void
    {
        $timedOut = false;
        $timer = $timeout === null ? null : $this->loop->delay($timeout, static function () use (&$timedOut): void {
            $timedOut = true;
        });
        while ($this->state === self::PENDING && !$timedOut) {
            if (!$this->loop->tick()) {
                throw new DeadlockException(
                    'await() would wait forever: nothing left on the loop (no timer, stream, signal or runnable actor) can settle this future.',
                );
            }
        }
        if ($timer !== null) {
            $this->loop->cancel($timer);
        }
        if ($this->state === self::PENDING) {
            throw new TimeoutException(sprintf('Gave up waiting for a future after %.3f s.', $timeout ?? 0.0));
        }
    }
}
