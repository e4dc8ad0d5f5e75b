<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Actor\Internal\ActorCell;
use Nexus\Actor\Internal\TimerFired;
use Nexus\Actor\Internal\TimerMode;
use Nexus\Runtime\Loop;

/**
 * An actor's keyed timers. Starting a timer under a key that is in use replaces the old one; a
 * message of a cancelled or replaced timer that is already queued is dropped, never delivered.
 * All are cancelled when the actor stops or restarts. A timer started once the actor is stopping
 * (in PostStop, or through a TimerScheduler kept past the actor's end) is not started, with a
 * warning: its messages could never be handled, and it would keep the loop running for ever.
 */
final class TimerScheduler
{
    /** @var array<string|int, array{int, int, TimerMode, float, mixed}> key => [loop id, generation, mode, interval, message] */
    private array $timers = [];
    private int $generation = 0;

    /**
     * @internal created by the actor's context
     */
    public function __construct(private readonly ActorCell $cell, private readonly Loop $loop) {}

    public function startSingleTimer(string|int $key, mixed $message, float $delay): void
    {
        $this->start($key, $message, TimerMode::Single, $delay, $delay);
    }

    /**
     * Sends $message every $interval seconds, whatever the actor does in between.
     */
    public function startTimerAtFixedRate(string|int $key, mixed $message, float $interval, ?float $initialDelay = null): void
    {
        $this->requirePositive($interval);
        $this->start($key, $message, TimerMode::FixedRate, $interval, $initialDelay ?? $interval);
    }

    /**
     * Sends $message, then again $delay seconds after the previous one was taken by the actor.
     */
    public function startTimerWithFixedDelay(string|int $key, mixed $message, float $delay, ?float $initialDelay = null): void
    {
        $this->requirePositive($delay);
        $this->start($key, $message, TimerMode::FixedDelay, $delay, $initialDelay ?? $delay);
    }

    public function isTimerActive(string|int $key): bool
    {
        return isset($this->timers[$key]);
    }

    public function cancel(string|int $key): void
    {
        if (isset($this->timers[$key])) {
            $this->loop->cancel($this->timers[$key][0]);
            unset($this->timers[$key]);
        }
    }

    public function cancelAll(): void
    {
        foreach ($this->timers as [$id]) {
            $this->loop->cancel($id);
        }
        $this->timers = [];
    }

    /**
     * @return list<string|int>
     */
    public function activeKeys(): array
    {
        return array_keys($this->timers);
    }

    /**
     * Called when a timer's message reaches the head of the mailbox: true when it is to be
     * delivered, false when its timer was cancelled or replaced since.
     *
     * @internal
     */
    public function accept(TimerFired $fired): bool
    {
        $timer = $this->timers[$fired->key] ?? null;
        if ($timer === null || $timer[1] !== $fired->generation) {
            return false;
        }
        if ($timer[2] === TimerMode::Single) {
            unset($this->timers[$fired->key]);
        } elseif ($timer[2] === TimerMode::FixedDelay) {
            $this->timers[$fired->key][0] = $this->arm($fired->key, $fired->generation, $timer[4], $timer[3]);
        }

        return true;
    }

    private function start(string|int $key, mixed $message, TimerMode $mode, float $interval, float $delay): void
    {
        $this->cancel($key);
        if ($this->cell->status >= ActorCell::STOPPING) {
            $this->cell->log()->warning('Timer {key} was not started: the actor is stopping or has stopped, so its messages could never be handled.', [
                'key' => $key,
            ]);

            return;
        }
        $generation = ++$this->generation;
        if ($mode === TimerMode::FixedRate) {
            $cell = $this->cell;
            $id = $this->loop->repeat(
                $interval,
                static function () use ($cell, $key, $generation, $message): void {
                    $cell->deliver(new TimerFired($key, $generation, $message), null);
                },
                $delay,
            );
        } else {
            $id = $this->arm($key, $generation, $message, $delay);
        }
        $this->timers[$key] = [$id, $generation, $mode, $interval, $message];
    }

    private function arm(string|int $key, int $generation, mixed $message, float $delay): int
    {
        $cell = $this->cell;

        return $this->loop->delay($delay, static function () use ($cell, $key, $generation, $message): void {
            $cell->deliver(new TimerFired($key, $generation, $message), null);
        });
    }

    private function requirePositive(float $interval): void
    {
        if ($interval <= 0.0) {
            throw new \InvalidArgumentException("A repeating timer needs an interval above zero, got {$interval} s.");
        }
    }
}
