<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\CancelledException;

/**
 * A request to give up on work in progress, passed to whatever waits or does I/O on the caller's
 * behalf: Future::await() throws the CancelledException once it is requested, and a client that
 * accepts one (a query, a pool checkout) releases what it held (the query is cancelled on the
 * server, the connection goes back clean).
 *
 * Made by a DeferredCancellation (cancelled by hand), a TimeoutCancellation (after some seconds)
 * or a CompositeCancellation (whichever of several comes first). A cancellation is requested at
 * most once and stays requested.
 */
interface Cancellation
{
    /**
     * Calls $callback(CancelledException) once cancellation is requested; at once if it already
     * was. The id is for unsubscribe().
     *
     * @param \Closure(CancelledException): void $callback
     */
    public function subscribe(\Closure $callback): int;

    /**
     * Forgets a callback; unknown ids (already called, already removed) are ignored.
     */
    public function unsubscribe(int $id): void;

    public function isRequested(): bool;

    /**
     * @throws CancelledException when cancellation was requested
     */
    public function throwIfRequested(): void;
}
