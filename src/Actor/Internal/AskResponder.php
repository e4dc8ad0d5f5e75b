<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\ReplyAddress;
use Nexus\Runtime\Future;

/**
 * The temporary sender of an ask: the first message told to it settles the future; anything after
 * that, or after the timeout, goes to dead letters. Its timeout is kept by an AskTimeoutQueue.
 *
 * Made for every ask: its fields are plain (not readonly, each of which costs a slow write here).
 *
 * @internal
 */
final class AskResponder implements ReplyAddress
{
    /** When the ask times out (set by the queue). */
    public float $deadline = 0.0;

    /**
     * @param Future<mixed> $future settled through Future::settle(), as a Deferred would
     */
    public function __construct(
        private Future $future,
        private ActorCell $target,
        private AskTimeoutQueue $timeouts,
        /** what was asked, for the timeout's message */
        private mixed $question,
    ) {
        $timeouts->add($this);
    }

    /**
     * The ask's time is up and no reply came (the queue has let go of it).
     */
    public function timedOut(): void
    {
        if ($this->future->isSettled()) {
            return;
        }
        ++$this->target->system->stats->askTimeouts;
        $this->future->settle(new AskTimeoutException(\sprintf(
            'No reply from %s within %.3f s to %s.',
            $this->target->path,
            $this->timeouts->seconds,
            get_debug_type($this->question),
        )), null);
    }

    public function path(): string
    {
        return $this->target->path . '#ask';
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        if ($this->future->settle(null, $message)) {
            $this->timeouts->remove($this);

            return;
        }
        $this->target->system->deadLetters->publish($message, $sender, $this->path(), DeadLetterReason::LateAskReply);
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        $this->tell($message);

        return Future::rejected($this->target->system->loop, new \LogicException('An ask reply address cannot be asked in turn.'));
    }

    public function undeliverable(DeadLetterReason $reason, string $recipient): void
    {
        if ($reason === DeadLetterReason::RecipientTerminated) {
            $this->recipientTerminated();
        }
    }

    public function whenSettled(\Closure $then): void
    {
        $this->future->onSettle(static function () use ($then): void {
            $then();
        });
    }

    public function recipientTerminated(): void
    {
        if ($this->future->settle(new RecipientTerminatedException(
            "{$this->target->path} had already stopped when it was asked; it cannot reply.",
        ), null)) {
            $this->timeouts->remove($this);
        }
    }
}
