<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Exception\CompositeException;
use Nexus\Runtime\Exception\DeadlockException;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Internal\UnhandledRejection;
use Nexus\Runtime\Internal\Waiter;

/**
 * A value that arrives later. Inside a fiber (an actor handler, an HTTP handler, Loop::async)
 * await() suspends only that fiber and the rest of the loop runs on; from top-level code it runs
 * the loop until the future settles.
 *
 * A failure is never lost: a future that fails and is then dropped without anybody awaiting it,
 * subscribing with onSettle() or calling ignore() is reported to the loop's error handler (an actor
 * system logs it) as an UnhandledRejectionException.
 *
 * A wait ends early with a TimeoutException after $timeout seconds, or with a CancelledException
 * when its Cancellation is requested: the one passed to await(), or the one the scheduler runs the
 * current task under (an HTTP handler's time limit). The future itself is left as it is.
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
    /** Somebody awaits or subscribed, or ignore() was called: a failure has somewhere to go. */
    private bool $handled = false;
    private ?UnhandledRejection $unhandled = null;
    /** @var array<int, \Closure(?\Throwable, mixed): void> */
    private array $callbacks = [];
    private int $nextCallback = 0;

    /**
     * @internal use a Deferred, Loop::async(), Future::fulfilled() or Future::rejected()
     */
    public function __construct(private readonly ?Loop $loop) {}

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

    /**
     * Fulfilled with every value, under the keys of $futures, once all are fulfilled; rejected with
     * the first failure (the other futures count as handled).
     *
     * @template V
     *
     * @param array<array-key, Future<V>> $futures
     *
     * @return Future<array<array-key, V>>
     */
    public static function all(array $futures): self
    {
        if ($futures === []) {
            $future = new self(null);
            $future->settle(null, []);

            return $future;
        }
        $result = new self(reset($futures)->loop);
        $values = array_fill_keys(array_keys($futures), null);
        $left = \count($futures);
        foreach ($futures as $key => $future) {
            $future->onSettle(static function (?\Throwable $error, mixed $value) use ($result, $key, &$values, &$left): void {
                if ($error !== null) {
                    $result->settle($error, null);
                } elseif (--$left === 0) {
                    $values[$key] = $value;
                    $result->settle(null, $values);
                } else {
                    $values[$key] = $value;
                }
            });
        }

        return $result;
    }

    /**
     * Fulfilled with the first value to arrive; rejected with a CompositeException (every failure
     * under its key) only when all of $futures fail.
     *
     * @template V
     *
     * @param non-empty-array<array-key, Future<V>> $futures
     *
     * @return Future<V>
     */
    public static function any(array $futures): self
    {
        $result = new self(self::first($futures, 'any')->loop);
        $errors = [];
        $left = \count($futures);
        foreach ($futures as $key => $future) {
            $future->onSettle(static function (?\Throwable $error, mixed $value) use ($result, $key, &$errors, &$left): void {
                if ($error === null) {
                    $result->settle(null, $value);

                    return;
                }
                $errors[$key] = $error;
                if (--$left === 0) {
                    $result->settle(new CompositeException($errors), null);
                }
            });
        }

        return $result;
    }

    /**
     * Settles as the first of $futures to settle does, value or failure.
     *
     * @template V
     *
     * @param non-empty-array<array-key, Future<V>> $futures
     *
     * @return Future<V>
     */
    public static function race(array $futures): self
    {
        $result = new self(self::first($futures, 'race')->loop);
        foreach ($futures as $future) {
            $future->onSettle(static function (?\Throwable $error, mixed $value) use ($result): void {
                $result->settle($error, $value);
            });
        }

        return $result;
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
     * The callback now owns a failure: it is not reported as unhandled.
     *
     * @param \Closure(?\Throwable, mixed): void $callback
     */
    public function onSettle(\Closure $callback): void
    {
        $this->markHandled();
        if ($this->state === self::PENDING) {
            $this->callbacks[$this->nextCallback++] = $callback;

            return;
        }
        $this->invoke($callback);
    }

    /**
     * Declares that a failure of this future needs no handling (a best-effort notification):
     * it is then not reported as unhandled.
     *
     * @return $this
     */
    public function ignore(): self
    {
        $this->markHandled();

        return $this;
    }

    /**
     * Waits for the value. Throws the failure the future was rejected with, a TimeoutException
     * when $timeout seconds pass first, or a CancelledException when $cancellation (or the
     * cancellation the current task runs under) is requested first.
     *
     * @phpstan-impure the world moves on while it waits
     *
     * @return T
     */
    public function await(?float $timeout = null, ?Cancellation $cancellation = null): mixed
    {
        $this->markHandled();
        if ($this->state === self::PENDING) {
            if (\Fiber::getCurrent() === null) {
                $this->runLoopUntilSettled($timeout, $cancellation);
            } else {
                $this->suspendUntilSettled($timeout, $cancellation);
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
     * @internal called by Deferred (and by what stands for one on an ask's hot path: a local ask's
     *           AskResponder, a remote ask's PendingReply)
     */
    public function settle(?\Throwable $error, mixed $value): bool
    {
        if ($this->state !== self::PENDING) {
            return false;
        }
        if ($error !== null) {
            $this->state = self::REJECTED;
            $this->error = $error;
            if (!$this->handled && $this->loop !== null) {
                $this->unhandled = new UnhandledRejection($this->loop, $error);
            }
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
     * @template V
     *
     * @param array<array-key, Future<V>> $futures
     *
     * @return Future<V>
     */
    private static function first(array $futures, string $combinator): self
    {
        $first = reset($futures);
        if ($first === false) {
            throw new \InvalidArgumentException("Future::{$combinator}() needs at least one future: with none it could never settle.");
        }

        return $first;
    }

    private function markHandled(): void
    {
        if (!$this->handled) {
            $this->handled = true;
            if ($this->unhandled !== null) {
                $this->unhandled->handled = true;
                $this->unhandled = null;
            }
        }
    }

    /**
     * @param \Closure(?\Throwable, mixed): void $callback
     */
    private function invoke(\Closure $callback): void
    {
        try {
            $callback($this->error, $this->value);
        } catch (\Throwable $e) {
            if ($this->loop === null) {
                throw $e;
            }
            $this->loop->reportError($e);
        }
    }

    private function suspendUntilSettled(?float $timeout, ?Cancellation $cancellation): void
    {
        $fiber = \Fiber::getCurrent();
        $loop = $this->loop;
        \assert($fiber !== null && $loop !== null);
        $scheduler = $loop->scheduler();
        $ambient = $scheduler->cancellation();
        $cancellation?->throwIfRequested();
        $ambient?->throwIfRequested();
        if ($scheduler->asked !== null) {
            // The actor this task just asked may answer at once (Scheduler::runAsked()).
            $scheduler->runAsked();
            if ($this->state !== self::PENDING) {
                return;
            }
        }
        $waiter = $scheduler->waiterFor($fiber);
        $waiter->arm($fiber);
        $callback = $this->nextCallback++;
        $this->callbacks[$callback] = $waiter->onWake;
        $timer = $timeout === null ? null : $loop->delay($timeout, $waiter->onWake);
        if ($cancellation !== null || $ambient !== null) {
            $explicitId = $cancellation?->subscribe($waiter->onCancel);
            $ambientId = $ambient?->subscribe($waiter->onCancel);
        } else {
            $explicitId = $ambientId = null;
        }
        try {
            $scheduler->suspend();
        } catch (\Throwable $e) {
            $this->endWait($waiter, $timer, $callback, $cancellation, $explicitId, $ambient, $ambientId);

            throw $e;
        }
        // Not a finally (see Scheduler::suspend()).
        $this->endWait($waiter, $timer, $callback, $cancellation, $explicitId, $ambient, $ambientId);
        if ($this->state !== self::PENDING) {
            return;
        }
        if ($waiter->cancelled !== null) {
            throw $waiter->cancelled;
        }

        throw new TimeoutException(\sprintf('Gave up waiting for a future after %.3f s.', $timeout ?? 0.0));
    }

    /**
     * Undoes what a wait registered: a waiter that gave up leaves nothing behind on a future that
     * may never settle, nor on the loop or the cancellations.
     */
    private function endWait(Waiter $waiter, ?int $timer, int $callback, ?Cancellation $cancellation, ?int $explicitId, ?Cancellation $ambient, ?int $ambientId): void
    {
        $waiter->disarm();
        if ($timer !== null) {
            \assert($this->loop !== null);
            $this->loop->cancel($timer);
        }
        if ($explicitId !== null) {
            \assert($cancellation !== null);
            $cancellation->unsubscribe($explicitId);
        }
        if ($ambientId !== null) {
            \assert($ambient !== null);
            $ambient->unsubscribe($ambientId);
        }
        unset($this->callbacks[$callback]);
    }

    private function runLoopUntilSettled(?float $timeout, ?Cancellation $cancellation): void
    {
        $loop = $this->loop;
        \assert($loop !== null);
        $cancellation?->throwIfRequested();
        $timedOut = false;
        $timer = $timeout === null ? null : $loop->delay($timeout, static function () use (&$timedOut): void {
            $timedOut = true;
        });
        try {
            while ($this->state === self::PENDING && !$timedOut && !($cancellation?->isRequested() ?? false)) {
                if (!$loop->tick()) {
                    throw new DeadlockException(
                        'await() would wait forever: nothing left on the loop (no timer, stream, signal or runnable actor) can settle this future.',
                    );
                }
            }
        } finally {
            if ($timer !== null) {
                $loop->cancel($timer);
            }
        }
        if ($this->state === self::PENDING) {
            $cancellation?->throwIfRequested();

            throw new TimeoutException(\sprintf('Gave up waiting for a future after %.3f s.', $timeout ?? 0.0));
        }
    }
}
