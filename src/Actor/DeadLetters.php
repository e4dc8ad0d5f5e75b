<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * Where undeliverable messages end: each is counted, published on the event stream as a
 * DeadLetter, and logged; logging is rate-limited to a burst per window, with a count of what was
 * left out.
 *
 * A redirect may take over a message before it becomes a dead letter: the worker pool forwards
 * what reaches an actor it is handing off to the process that takes it over (redirectWith()), and
 * an entity region hands what reaches a stopped entity to its next incarnation
 * (redirectChildrenOf(), asked first).
 */
final class DeadLetters
{
    private int $count = 0;
    /** @var array<string, int> */
    private array $byReason = [];
    private float $windowStart = -\INF;
    private int $loggedInWindow = 0;
    private int $suppressed = 0;
    /** @var (\Closure(mixed, ?ActorRef, string, DeadLetterReason): bool)|null */
    private ?\Closure $redirect = null;
    /** @var array<string, \Closure(mixed, ?ActorRef, string, DeadLetterReason): bool> by the parent path of the recipients */
    private array $childRedirects = [];

    public function __construct(
        private readonly EventStream $eventStream,
        private readonly LoggerInterface $logger,
        private readonly Loop $loop,
        private readonly int $logBurst = 10,
        private readonly float $logWindow = 10.0,
    ) {}

    public function publish(mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): void
    {
        ++$this->count;
        $this->byReason[$reason->value] = ($this->byReason[$reason->value] ?? 0) + 1;
        if ($this->eventStream->hasSubscribers(DeadLetter::class)) {
            $this->eventStream->publish(new DeadLetter($message, $sender, $recipient, $reason));
        }
        $this->log($message, $sender, $recipient, $reason);
    }

    /**
     * Lets $redirect take over messages on their way to dead letters: it returns true when it
     * delivered the message elsewhere (it is then no dead letter), false to let it through. Null
     * removes it. Used by the worker pool while it hands actors off to another process.
     *
     * @param (\Closure(mixed, ?ActorRef, string, DeadLetterReason): bool)|null $redirect
     */
    public function redirectWith(?\Closure $redirect): void
    {
        $this->redirect = $redirect;
    }

    /**
     * Lets $redirect take over the messages on their way to dead letters whose recipient is a
     * child of $parentPath (asked before the redirect of redirectWith()). Null removes it. Used
     * by entity regions: what reaches an entity that has just stopped goes to its next
     * incarnation.
     *
     * @param (\Closure(mixed, ?ActorRef, string, DeadLetterReason): bool)|null $redirect
     */
    public function redirectChildrenOf(string $parentPath, ?\Closure $redirect): void
    {
        if ($redirect === null) {
            unset($this->childRedirects[$parentPath]);
        } else {
            $this->childRedirects[$parentPath] = $redirect;
        }
    }

    /**
     * Whether a redirect took this message over (see redirectChildrenOf() and redirectWith()).
     */
    public function redirected(mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): bool
    {
        if ($this->childRedirects !== []) {
            $slash = strrpos($recipient, '/');
            $children = $slash === false ? null : ($this->childRedirects[substr($recipient, 0, $slash)] ?? null);
            if ($children !== null && $children($message, $sender, $recipient, $reason)) {
                return true;
            }
        }

        return $this->redirect !== null && ($this->redirect)($message, $sender, $recipient, $reason);
    }

    public function count(): int
    {
        return $this->count;
    }

    public function countFor(DeadLetterReason $reason): int
    {
        return $this->byReason[$reason->value] ?? 0;
    }

    private function log(mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): void
    {
        $now = $this->loop->clock()->now();
        if ($now - $this->windowStart >= $this->logWindow) {
            if ($this->suppressed > 0) {
                $this->logger->info('{count} more dead letters were not logged in the last {window} s.', [
                    'count' => $this->suppressed,
                    'window' => $this->logWindow,
                ]);
            }
            $this->windowStart = $now;
            $this->loggedInWindow = 0;
            $this->suppressed = 0;
        }
        if ($this->loggedInWindow >= $this->logBurst) {
            ++$this->suppressed;

            return;
        }
        ++$this->loggedInWindow;
        $this->logger->info('Dead letter to {recipient} ({reason}): {message} from {sender}.', [
            'recipient' => $recipient,
            'reason' => $reason->value,
            'message' => get_debug_type($message),
            'sender' => $sender?->path() ?? 'nobody',
        ]);
    }
}
