<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorStats;
use Nexus\Actor\DeadLetters;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\ReplyAddress;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The temporary sender of an ask: the first message told to it settles the future; anything after
 * that, or after the timeout, goes to dead letters.
 *
 * @internal
 */
final class AskResponder implements ReplyAddress
{
    public ?int $timer = null;

    /**
     * @param Deferred<mixed> $deferred
     */
    public function __construct(
        private readonly Deferred $deferred,
        private readonly Loop $loop,
        private readonly DeadLetters $deadLetters,
        private readonly string $target,
        private readonly float $timeout = 5.0,
        /** what was asked, for the timeout's message */
        private readonly mixed $question = null,
        private readonly ActorStats $stats = new ActorStats(),
    ) {}

    /**
     * The ask's timer: no reply came in time.
     */
    public function timedOut(): void
    {
        $this->timer = null;
        ++$this->stats->askTimeouts;
        $this->deferred->tryReject(new AskTimeoutException(\sprintf(
            'No reply from %s within %.3f s to %s.',
            $this->target,
            $this->timeout,
            get_debug_type($this->question),
        )));
    }

    public function path(): string
    {
        return $this->target . '#ask';
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        if ($this->deferred->tryResolve($message)) {
            if ($this->timer !== null) {
                $this->loop->cancel($this->timer);
                $this->timer = null;
            }

            return;
        }
        $this->deadLetters->publish($message, $sender, $this->path(), DeadLetterReason::LateAskReply);
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        $this->tell($message);

        return Future::rejected($this->loop, new \LogicException('An ask reply address cannot be asked in turn.'));
    }

    public function undeliverable(DeadLetterReason $reason, string $recipient): void
    {
        if ($reason === DeadLetterReason::RecipientTerminated) {
            $this->recipientTerminated();
        }
    }

    public function whenSettled(\Closure $then): void
    {
        $this->deferred->future()->onSettle(static function () use ($then): void {
            $then();
        });
    }

    public function recipientTerminated(): void
    {
        if ($this->deferred->tryReject(new RecipientTerminatedException(
            "{$this->target} had already stopped when it was asked; it cannot reply.",
        )) && $this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
    }
}
