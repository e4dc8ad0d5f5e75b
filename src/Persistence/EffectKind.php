<?php

declare(strict_types=1);

namespace Nexus\Persistence;

/**
 * What a command handler decided (see Effect).
 */
enum EffectKind
{
    /** Store events (or the new state, for durable state), then run the side effects. */
    case Persist;
    /** Nothing to store; run the side effects. */
    case None;
    /** Not a command for this actor: it goes to dead letters. */
    case Unhandled;
    /** Put the command aside until thenUnstashAll(). */
    case Stash;
    /** Stop the actor after the side effects. */
    case Stop;
}
