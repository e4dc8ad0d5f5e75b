<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\Traced;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Actor\Remote\RemoteWatchable;
use Nexus\Runtime\Future;

/**
 * A reference to an actor in this process; to a transport, its Endpoint.
 *
 * @internal users see ActorRef (and transports Endpoint)
 */
final class LocalActorRef implements Endpoint
{
    public function __construct(
        /** @readonly (not `readonly`: see ActorCell) */
        public ActorCell $cell,
    ) {}

    public function path(): string
    {
        return $this->cell->path;
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        $scheduler = $this->cell->system->scheduler;
        if ($sender === null) {
            $current = $scheduler->current;
            if ($current instanceof ActorCell) {
                $sender = $current->ref;
            }
        }
        if ($scheduler->trace !== null) {
            $message = new Traced($message, $scheduler->trace);
        }
        $this->cell->deliver($message, $sender);
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        $cell = $this->cell;
        $system = $cell->system;
        /** @var Future<mixed> $future */
        $future = new Future($system->loop);
        $responder = new AskResponder($future, $cell, $system->askTimeouts->queue($timeout), $message);
        $scheduler = $system->scheduler;
        $trace = $scheduler->trace;
        $idle = !$cell->scheduled;
        $cell->deliver($trace === null ? $message : new Traced($message, $trace), $responder);
        if ($idle && $cell->scheduled) {
            // This ask queued the actor: if the asker waits now, the actor runs next (see Scheduler).
            $scheduler->asked = $cell;
        }

        return $future;
    }

    public function deliver(mixed $message, ?ActorRef $sender): void
    {
        $this->cell->deliver($message, $sender);
    }

    public function isTerminated(): bool
    {
        return $this->cell->status === ActorCell::TERMINATED;
    }

    public function isStopping(): bool
    {
        return $this->cell->status >= ActorCell::STOPPING;
    }

    public function queued(): int
    {
        return $this->cell->mailbox->count();
    }

    public function deliveryLimit(): ?int
    {
        $mailbox = $this->cell->mailbox;
        if ($mailbox->capacity === \PHP_INT_MAX) {
            return null;
        }

        return $mailbox->overflow === OverflowPolicy::Backpressure ? $mailbox->capacity : \PHP_INT_MAX;
    }

    public function isIdle(): bool
    {
        $cell = $this->cell;

        return $cell->status === ActorCell::RUNNING && $cell->mailbox->isEmpty() && $cell->extras?->holdPoisonPill !== true;
    }

    public function lastActivity(): float
    {
        return $this->cell->extras->lastActivity ?? 0.0;
    }

    public function watch(ActorRef $target): void
    {
        $this->cell->watch($target);
    }

    public function child(string $name): ?Endpoint
    {
        return ($this->cell->children[$name] ?? null)?->ref;
    }

    public function children(): array
    {
        $refs = [];
        foreach ($this->cell->children as $child) {
            $refs[] = $child->ref;
        }

        return $refs;
    }

    public function spawnChild(Props|Behavior $props, string $name): Endpoint
    {
        $ref = $this->cell->spawn($props, $name);
        \assert($ref instanceof self);

        return $ref;
    }

    public function stopAfterCurrent(PoisonPill $pill): void
    {
        $this->cell->stopAfterCurrent($pill);
    }

    public function remoteTerminated(RemoteWatchable $dead): void
    {
        $this->cell->deliver(new RemoteDeathNotice($dead), $dead);
    }

    public function __toString(): string
    {
        return $this->cell->path;
    }
}
