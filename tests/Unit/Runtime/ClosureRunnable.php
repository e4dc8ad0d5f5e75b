<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Runnable;

/**
 * Test fixture: a Runnable that runs a closure, for driving the scheduler without actors.
 */
final class ClosureRunnable implements Runnable
{
    /**
     * @param \Closure(): void $body
     */
    public function __construct(private readonly \Closure $body) {}

    public function run(): void
    {
        ($this->body)();
    }
}
