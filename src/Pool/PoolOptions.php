<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Pool\Exception\InvalidPoolOptionsException;

/**
 * The settings of a ConnectionPool (the names follow HikariCP's where they mean the same).
 *
 * - maxSize: connections that may exist at once: lent out, idle, being reset or being opened.
 * - minIdle: idle connections kept ready; the pool opens more in the background (up to maxSize)
 *   when fewer are idle, and the idle timeout never closes these. 0: connections are opened only
 *   when a caller needs one.
 * - acquireTimeout: seconds a caller waits for a connection when all are busy; then
 *   PoolTimeoutException.
 * - maxWaiters: callers that may wait at once; one more is refused at once with
 *   PoolWaitQueueFullException (an overloaded system fails fast instead of queueing without bound).
 * - idleTimeout: seconds an idle connection (beyond minIdle) is kept before it is closed; null keeps
 *   idle connections for ever.
 * - maxLifetime: seconds after opening a connection is closed: while idle, or when it comes back;
 *   never while lent out. null: no limit.
 */
final readonly class PoolOptions
{
    public function __construct(
        public int $maxSize = 10,
        public float $acquireTimeout = 5.0,
        public int $maxWaiters = 10_000,
        public ?float $idleTimeout = 60.0,
        public ?float $maxLifetime = null,
        public int $minIdle = 0,
    ) {
        if ($maxSize < 1) {
            throw new InvalidPoolOptionsException("A pool needs a maxSize of at least 1, got {$maxSize}.");
        }
        if (!($acquireTimeout > 0.0) || is_infinite($acquireTimeout)) {
            throw new InvalidPoolOptionsException("The pool's acquire timeout must be a finite number of seconds above zero, got {$acquireTimeout}.");
        }
        if ($maxWaiters < 0) {
            throw new InvalidPoolOptionsException("maxWaiters cannot be negative, got {$maxWaiters} (0 refuses every caller that would have to wait).");
        }
        if ($idleTimeout !== null && !($idleTimeout > 0.0)) {
            throw new InvalidPoolOptionsException("The idle timeout must be above zero seconds, or null to keep idle connections, got {$idleTimeout}.");
        }
        if ($maxLifetime !== null && !($maxLifetime > 0.0)) {
            throw new InvalidPoolOptionsException("The maximum lifetime must be above zero seconds, or null for none, got {$maxLifetime}.");
        }
        if ($minIdle < 0 || $minIdle > $maxSize) {
            throw new InvalidPoolOptionsException("minIdle must be between 0 and maxSize ({$maxSize}), got {$minIdle}.");
        }
    }

    public function withMaxSize(int $maxSize): self
    {
        return new self($maxSize, $this->acquireTimeout, $this->maxWaiters, $this->idleTimeout, $this->maxLifetime, min($this->minIdle, $maxSize));
    }

    public function withAcquireTimeout(float $acquireTimeout): self
    {
        return new self($this->maxSize, $acquireTimeout, $this->maxWaiters, $this->idleTimeout, $this->maxLifetime, $this->minIdle);
    }
}
