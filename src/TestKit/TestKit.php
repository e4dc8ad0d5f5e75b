<?php

declare(strict_types=1);

namespace Nexus\TestKit;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;

/**
 * A deterministic actor runtime for tests: an actor system on a loop whose clock only moves when
 * the test says so. Nothing runs until the test steps it; timers, backoff, ask timeouts and
 * receive timeouts fire when virtual time reaches them, without sleeping.
 *
 *     $kit = new TestKit();
 *     $probe = $kit->probe();
 *     $ref = $kit->system->spawn($props);
 *     $ref->tell(new Ping(), $probe->ref);
 *     $probe->expectMessage(new Pong());   // runs the system until the reply arrives
 *     $kit->advance(5.0);                 // fires whatever is due in the next 5 s, in order
 */
final class TestKit
{
    public readonly VirtualClock $clock;
    public readonly Loop $loop;
    public readonly MemoryLogger $logger;
    public readonly ActorSystem $system;
    private int $probes = 0;

    public function __construct(?SupervisorStrategy $defaultStrategy = null, int $throughput = 64)
    {
        $this->clock = new VirtualClock(1000.0);
        $this->loop = new Loop($this->clock, schedulerBudget: 1);
        $this->logger = new MemoryLogger();
        $this->system = new ActorSystem('test', $this->logger, $this->loop, $defaultStrategy, $throughput);
        $this->loop->runUntilIdle(); // the guardians start, so that the test's first step is its own
    }

    public function spawn(Props|Behavior $props, ?string $name = null): ActorRef
    {
        return $this->system->spawn($props, $name);
    }

    public function probe(?string $name = null): TestProbe
    {
        return new TestProbe($this->system, $name ?? 'probe-' . ++$this->probes);
    }

    /**
     * One loop turn without moving time: due timers, deferred callbacks, and one actor's turn (up
     * to `throughput` of its messages).
     */
    public function step(): void
    {
        $this->loop->tick(false);
    }

    /**
     * Runs everything runnable now, without moving time.
     */
    public function runUntilIdle(): void
    {
        $this->loop->runUntilIdle();
    }

    /**
     * Moves virtual time forward by $seconds, firing every timer due on the way at its own
     * instant, in order, and running the system until idle after each.
     */
    public function advance(float $seconds): void
    {
        if ($seconds < 0.0) {
            throw new \InvalidArgumentException("Time cannot move backwards: got {$seconds} s.");
        }
        $target = $this->clock->now() + $seconds;
        $this->loop->runUntilIdle();
        while (($due = $this->loop->nextTimerDue()) !== null && $due <= $target) {
            $this->clock->advanceTo($due);
            $this->loop->runUntilIdle();
        }
        $this->clock->advanceTo($target);
        $this->loop->runUntilIdle();
    }

    public function now(): float
    {
        return $this->clock->now();
    }

    /**
     * Shuts the system down and runs it until it has terminated.
     */
    public function shutdown(float $deadline = 10.0): void
    {
        $this->system->shutdown($deadline);
        $this->system->run();
    }
}
