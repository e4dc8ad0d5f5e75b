<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Runtime\Loop;

/**
 * The asks of one length waiting for their reply (see AskTimeouts), oldest first, and the loop
 * timer that fails those whose time is up.
 *
 * @internal
 */
final class AskTimeoutQueue
{
    /** @var array<int, AskResponder> by object id, oldest first: their deadlines rise */
    private array $waiting = [];
    /** Armed for the deadline of the oldest ask, or an earlier one's; null when none is. */
    private ?int $timer = null;
    /** Whether the timer keeps the loop alive: while an ask waits. */
    private bool $referenced = false;
    /** @var \Closure(): void */
    private readonly \Closure $expire;

    public function __construct(
        private readonly Loop $loop,
        public readonly float $seconds,
    ) {
        $this->expire = $this->expire(...);
    }

    public function add(AskResponder $ask): void
    {
        $ask->deadline = $this->loop->now() + $this->seconds;
        $this->waiting[spl_object_id($ask)] = $ask;
        if ($this->timer === null) {
            $this->timer = $this->loop->delay($this->seconds, $this->expire);
            $this->referenced = true;
        } elseif (!$this->referenced) {
            $this->loop->reference($this->timer);
            $this->referenced = true;
        }
    }

    /**
     * $ask has its answer (or failed otherwise): it no longer waits here.
     */
    public function remove(AskResponder $ask): void
    {
        unset($this->waiting[spl_object_id($ask)]);
        if ($this->waiting === [] && $this->referenced) {
            // The timer stays armed for later asks but no longer keeps the loop alive.
            $this->waiting = [];
            $this->referenced = false;
            \assert($this->timer !== null);
            $this->loop->unreference($this->timer);
        }
    }

    public function count(): int
    {
        return \count($this->waiting);
    }

    private function expire(): void
    {
        $this->timer = null;
        $this->referenced = false;
        $now = $this->loop->now();
        foreach ($this->waiting as $id => $ask) {
            if ($ask->deadline > $now) {
                $this->timer = $this->loop->delay($ask->deadline - $now, $this->expire);
                $this->referenced = true;

                return;
            }
            unset($this->waiting[$id]);
            $ask->timedOut();
        }
        $this->waiting = [];
    }
}
