<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Cancellation;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Runnable;

/**
 * Test fixture: a Runnable that is also the Cancellation it runs under (as an HTTP request under
 * its handler's time limit is); $source cancels it.
 */
final class CancellableRunnable implements Runnable, Cancellation
{
    public readonly DeferredCancellation $source;

    /**
     * @param \Closure(): void $body
     */
    public function __construct(Loop $loop, private readonly \Closure $body)
    {
        $this->source = new DeferredCancellation($loop);
    }

    public function run(): void
    {
        ($this->body)();
    }

    public function subscribe(\Closure $callback): int
    {
        return $this->source->cancellation()->subscribe($callback);
    }

    public function unsubscribe(int $id): void
    {
        $this->source->cancellation()->unsubscribe($id);
    }

    public function isRequested(): bool
    {
        return $this->source->isCancelled();
    }

    public function throwIfRequested(): void
    {
        $this->source->cancellation()->throwIfRequested();
    }
}
