<?php

declare(strict_types=1);

namespace Nexus\Bench\Persistence;

use Nexus\Actor\ActorRef;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;

/**
 * The driver of the concurrent case: the sender of every command. Each reply is counted and
 * answered at once with the next command to the same actor (so every actor has one command in
 * flight), until $target replies have come; no mailbox, no actor turn of its own, so that the
 * driver costs next to nothing beside what is measured.
 */
final class ReplyCounter implements ActorRef
{
    public int $replies = 0;
    public int $failures = 0;

    /**
     * @param Deferred<null> $done
     */
    public function __construct(
        private readonly int $target,
        private readonly Deferred $done,
        private readonly mixed $command,
    ) {}

    public function path(): string
    {
        return '/bench/driver';
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        if (!\is_int($message)) {
            ++$this->failures;
        }
        if (++$this->replies >= $this->target) {
            $this->done->tryResolve(null);

            return;
        }
        $sender?->tell($this->command, $this);
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        throw new \LogicException('The benchmark driver is not asked.');
    }
}
