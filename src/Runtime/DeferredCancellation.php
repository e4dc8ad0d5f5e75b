<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Internal\CancellationState;

/**
 * The cancelling side of a Cancellation: whoever holds it requests cancellation, whoever gets
 * cancellation() can only watch for it (as Deferred and Future split settling from waiting).
 *
 *     $source = new DeferredCancellation($loop);
 *     $result = $pool->queryAsync('SELECT ...', [], $source->cancellation());
 *     $source->cancel(); // the query is cancelled on the server, its await() throws
 */
final class DeferredCancellation
{
    private readonly CancellationState $state;

    public function __construct(Loop $loop)
    {
        $this->state = new CancellationState($loop->reportError(...));
    }

    public function cancellation(): Cancellation
    {
        return $this->state;
    }

    /**
     * Requests cancellation: every subscriber is called with a CancelledException whose previous
     * exception is $reason (when given). Calling it again does nothing.
     */
    public function cancel(?\Throwable $reason = null): void
    {
        $this->state->cancel(new CancelledException(
            $reason === null ? 'The operation was cancelled.' : 'The operation was cancelled: ' . $reason->getMessage(),
            0,
            $reason,
        ));
    }

    public function isCancelled(): bool
    {
        return $this->state->isRequested();
    }
}
