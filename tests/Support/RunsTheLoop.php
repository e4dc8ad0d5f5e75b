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
    private ?float $giveUpAt = null;
    private float $giveUpAfter = 0.0;

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
     * Runs the loop until $condition holds, asking again every few milliseconds, for conditions
     * the loop cannot signal (the state of a server, a watcher that does not keep the loop
     * alive); fails after $timeout seconds.
     *
     * @param \Closure(): bool $condition
     */
    protected function pollUntil(\Closure $condition, float $timeout = 10.0): void
    {
        $deadline = microtime(true) + $timeout;
        while (!$condition()) {
            $this->checkLoop();
            if (microtime(true) > $deadline) {
                self::fail("The condition did not hold within {$timeout} s.");
            }
            $wake = $this->loop->delay(0.005, static function (): void {});
            $this->loop->tick();
            $this->loop->cancel($wake);
        }
    }

    /**
     * Fails the test from checkLoop() once $seconds have passed from now: the watchdog of a
     * test whose waits all run the loop.
     */
    protected function giveUpAfter(float $seconds): void
    {
        $this->giveUpAfter = $seconds;
        $this->giveUpAt = microtime(true) + $seconds;
    }

    /**
     * Throws what should end the wait early: the watchdog of giveUpAfter() when it was set,
     * nothing otherwise.
     */
    protected function checkLoop(): void
    {
        if ($this->giveUpAt !== null && microtime(true) > $this->giveUpAt) {
            self::fail("The test did not finish within {$this->giveUpAfter} s.");
        }
    }
}
