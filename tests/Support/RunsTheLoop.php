<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

use Nexus\Runtime\Loop;

/**
 * Drives a test's loop until something holds, or for a while. The using test case keeps its loop
 * in $this->loop and may override checkLoop() to stop early on a failure the loop recorded.
 *
 * @property Loop $loop
 */
trait RunsTheLoop
{
    /**
     * Runs the loop for $seconds (to show that something does not happen).
     */
    protected function runFor(float $seconds): void
    {
        $done = false;
        $this->loop->delay($seconds, static function () use (&$done): void {
            $done = true;
        });
        $this->runUntil(static function () use (&$done): bool {
            return $done;
        });
    }

    /**
     * Runs the loop until $condition holds.
     *
     * @param \Closure(): bool $condition
     */
    protected function runUntil(\Closure $condition): void
    {
        while (!$condition()) {
            $this->checkLoop();
            if (!$this->loop->tick()) {
                self::fail('The loop ran out of work before the condition held.');
            }
        }
    }

    /**
     * Throws what should end the wait early (a watchdog, say); nothing by default.
     */
    protected function checkLoop(): void {}
}
