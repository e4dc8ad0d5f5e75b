<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;

/**
 * A reference to an actor in this process.
 *
 * @internal users see ActorRef
 */
final class LocalActorRef implements ActorRef
{
    public function __construct(public readonly ActorCell $cell) {}

    public function path(): string
    {
        return $this->cell->path;
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        if ($sender === null) {
            $current = $this->cell->system->scheduler->current;
            if ($current instanceof ActorCell) {
                $sender = $current->ref;
            }
        }
        $this->cell->deliver($message, $sender);
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        $system = $this->cell->system;
        $loop = $system->loop;
        /** @var Deferred<mixed> $deferred */
        $deferred = new Deferred($loop);
        $responder = new AskResponder($deferred, $loop, $system->deadLetters, $this->cell->path, $timeout, $message, $system->stats);
        $responder->timer = $loop->delay($timeout, $responder->timedOut(...));
        $this->cell->deliver($message, $responder);

        return $deferred->future();
    }

    public function __toString(): string
    {
        return $this->cell->path;
    }
}
