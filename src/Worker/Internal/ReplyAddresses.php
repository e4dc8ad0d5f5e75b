<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\DeadLetters;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\ReplyAddress;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The /temp/g<generation>.<n> addresses of one worker's mesh: where the reply to a remote ask, or
 * to a local non-actor sender passed on to another worker, comes back. The generation tells the
 * processes of one slot apart during a reload: a reply that reaches the other one is passed on
 * (see Mesh::deliver()).
 *
 * An address lives until its owner settles: a remote ask's until its reply, its failure or its
 * timeout; a forwarded sender's until that sender's own ask settles (ReplyAddress::whenSettled()),
 * or for another kind of sender until a reply arrives or FORWARD_TTL passes. So the table holds
 * only what can still be answered.
 *
 * @internal
 */
final class ReplyAddresses
{
    public const PREFIX = '/temp/';
    /** How long an address for a local sender that cannot say when it is settled stays valid. */
    private const FORWARD_TTL = 60.0;
    /** Ask timeouts (seconds) below this are kept in the lists of deadlines; others get a timer each. */
    private const LISTED_TIMEOUT = 1e9;

    /** @var array<int, PendingReply> */
    private array $pending = [];
    /** @var array<int, int> the address (its number) each timer of an address ends, by timer */
    private array $expiring = [];
    private int $next = 0;
    /** @var \Closure(int): void what every address's timer calls, with its timer: one closure, not one per ask */
    private readonly \Closure $expire;
    /**
     * The deadlines of the asks waiting for a reply, by timeout (in µs): each list is in the order
     * the asks were made, which is the order of their deadlines. One loop timer (not one per ask)
     * is set for the earliest; it stays set while no ask waits, without keeping the loop running,
     * so that asks one after the other neither set nor cancel a timer each.
     *
     * @var array<int, array<int, float>>
     */
    private array $deadlines = [];
    private ?int $deadlineTimer = null;
    private float $deadlineDue = \INF;
    private bool $deadlineReferenced = false;
    /** @var \Closure(int): void */
    private readonly \Closure $expireAsks;

    /** This mesh's own addresses start with this. */
    public readonly string $prefix;

    /**
     * @param \Closure(PendingReply): \Throwable $timedOut what an ask fails with when its timeout passes
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly DeadLetters $deadLetters,
        private readonly int $worker,
        int $generation,
        private readonly \Closure $timedOut,
    ) {
        $this->prefix = self::PREFIX . "g{$generation}.";
        $this->expire = $this->expired(...);
        $this->expireAsks = $this->asksExpired(...);
    }

    /**
     * An address for the reply to a remote ask of $message to $path (on slot $worker when known):
     * the ask fails once $timeout passes (see the constructor's $timedOut).
     *
     * @param Future<mixed> $future settled here (Future::settle()) when the reply or the timeout comes
     */
    public function forAsk(Future $future, float $timeout, string $path, ?int $worker, mixed $message): string
    {
        $id = ++$this->next;
        $pending = $this->pending[$id] = new PendingReply($future, $path, $worker, $timeout, $message);
        if (!($timeout >= 0.0 && $timeout < self::LISTED_TIMEOUT)) {
            // Infinite, huge, negative or NaN: a timer of its own, which keeps the list in order.
            $timer = $pending->timer = $this->loop->delay($timeout, $this->expire);
            $this->expiring[$timer] = $id;

            return $this->prefix . $id;
        }
        $due = $this->loop->now() + $timeout;
        $this->deadlines[(int) ($timeout * 1e6)][$id] = $due;
        if ($this->deadlineTimer === null || $due < $this->deadlineDue) {
            $this->armDeadline($due);
        } elseif (!$this->deadlineReferenced) {
            $this->loop->reference($this->deadlineTimer);
            $this->deadlineReferenced = true;
        }

        return $this->prefix . $id;
    }

    /**
     * Sets the one timer of the asks' deadlines for $due.
     */
    private function armDeadline(float $due): void
    {
        if ($this->deadlineTimer !== null) {
            $this->loop->cancel($this->deadlineTimer);
        }
        $this->deadlineTimer = $this->loop->delay(max(0.0, $due - $this->loop->now()), $this->expireAsks);
        $this->deadlineDue = $due;
        $this->deadlineReferenced = true;
    }

    /**
     * The timer of the asks' deadlines ran out: the asks whose timeout has passed fail (and their
     * addresses go), and the timer is set again for the earliest deadline left.
     */
    private function asksExpired(int $timer): void
    {
        if ($timer !== $this->deadlineTimer) {
            return;
        }
        $this->deadlineTimer = null;
        $this->deadlineDue = \INF;
        $now = $this->loop->now();
        $next = \INF;
        $expired = [];
        foreach ($this->deadlines as $key => $queue) {
            foreach ($queue as $id => $due) {
                if ($due > $now) {
                    $next = min($next, $due);

                    continue 2;
                }
                unset($this->deadlines[$key][$id]);
                $pending = $this->pending[$id] ?? null;
                unset($this->pending[$id]);
                if ($pending?->future !== null) {
                    $expired[] = $pending;
                }
            }
            unset($this->deadlines[$key]);
        }
        if ($next !== \INF) {
            $this->armDeadline($next);
        }
        foreach ($expired as $pending) {
            $pending->future?->settle(($this->timedOut)($pending), null);
        }
    }

    /**
     * The timer of an address ran out: the address goes, and an ask waiting there fails.
     */
    private function expired(int $timer): void
    {
        $id = $this->expiring[$timer] ?? null;
        if ($id === null) {
            return;
        }
        unset($this->expiring[$timer]);
        $pending = $this->pending[$id] ?? null;
        unset($this->pending[$id]);
        if ($pending?->future !== null) {
            $pending->future->settle(($this->timedOut)($pending), null);
        }
    }

    /**
     * An address that passes a reply on to $sender, a local sender that is no actor (an ask's
     * responder, a probe).
     */
    public function forSender(ActorRef $sender): string
    {
        $id = ++$this->next;
        $pending = new PendingReply(null);
        $pending->forwardTo = $sender;
        $this->pending[$id] = $pending;
        if ($sender instanceof ReplyAddress) {
            $sender->whenSettled(function () use ($id): void {
                $this->free($id);
            });
            if (!isset($this->pending[$id])) {
                return $this->prefix . $id; // already settled: the address answers nobody
            }
        }
        $timer = $pending->timer = $this->loop->delay(self::FORWARD_TTL, $this->expire);
        $this->expiring[$timer] = $id;
        $this->loop->unreference($timer);

        return $this->prefix . $id;
    }

    public function idOf(string $path): int
    {
        return (int) substr($path, \strlen($this->prefix));
    }

    /**
     * The generation of the process whose address $path is (0 when it names none).
     */
    public static function generationOf(string $path): int
    {
        return str_starts_with($path, self::PREFIX . 'g') ? (int) substr($path, \strlen(self::PREFIX) + 1) : 0;
    }

    /**
     * A reply arrived at $path; $failure says whether it is the news that the ask failed.
     *
     * @param \Closure(mixed): ?\Throwable $failure
     */
    public function deliver(string $path, mixed $message, ?ActorRef $sender, \Closure $failure): void
    {
        $id = $this->idOf($path);
        $pending = $this->pending[$id] ?? null;
        if ($pending === null) {
            $this->deadLetters->publish($message, $sender, "worker {$this->worker}:{$path}", DeadLetterReason::LateAskReply);

            return;
        }
        if ($pending->future !== null) {
            $this->free($id);
            $pending->future->settle($failure($message), $message);

            return;
        }
        if ($pending->forwardTo instanceof ReplyAddress) {
            $this->free($id); // a one-shot address: its one reply is passed on
        }
        $pending->forwardTo?->tell($message, $sender);
    }

    /**
     * The message sent with this address as its sender was not delivered: the ask fails with
     * $error (a forwarded sender learns it through $notify).
     *
     * @param \Closure(ActorRef): void $notify
     */
    public function fail(string $path, \Throwable $error, \Closure $notify): void
    {
        $id = $this->idOf($path);
        $pending = $this->pending[$id] ?? null;
        if ($pending === null) {
            return;
        }
        $this->free($id);
        if ($pending->future !== null) {
            $pending->future->settle($error, null);
        } elseif ($pending->forwardTo !== null) {
            $notify($pending->forwardTo);
        }
    }

    public function free(int $id): void
    {
        $pending = $this->pending[$id] ?? null;
        if ($pending === null) {
            return;
        }
        unset($this->pending[$id]);
        if ($pending->timer !== null) {
            unset($this->expiring[$pending->timer]);
            $this->loop->cancel($pending->timer);
        } elseif ($pending->future !== null) {
            $key = (int) ($pending->timeout * 1e6);
            unset($this->deadlines[$key][$id]);
            if (($this->deadlines[$key] ?? []) === []) {
                unset($this->deadlines[$key]);
                if ($this->deadlines === [] && $this->deadlineTimer !== null) {
                    // Left set for the next ask, but no reason to keep the loop running.
                    $this->loop->unreference($this->deadlineTimer);
                    $this->deadlineReferenced = false;
                }
            }
        }
    }

    /**
     * Addresses still waiting for a reply.
     */
    public function count(): int
    {
        return \count($this->pending);
    }
}
