<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Remote\RemoteWatchable;
use Nexus\Actor\TimerScheduler;
use Nexus\Runtime\Deferred;

/**
 * The parts of an actor that most actors never use (watches, timers, stash, receive timeout,
 * restart bookkeeping, the become stack), created on first use so that a plain actor stays small.
 *
 * @internal
 */
final class CellExtras
{
    /** @var list<array{?\Closure, mixed, ?\Closure}> behaviors that become(..., false) pushed aside */
    public array $behaviorStack = [];
    /** @var array<int, ActorCell> actors watching this one */
    public array $watchers = [];
    /** @var array<int, array{ActorCell, mixed, bool}> watched cell, custom message, Terminated queued */
    public array $watching = [];
    /** @var array<string, array{RemoteWatchable, mixed}> watched actors of other processes, custom message */
    public array $remoteWatching = [];
    public ?TimerScheduler $timers = null;
    /** @var list<array{mixed, ActorRef|null}> */
    public array $stash = [];
    /** A PoisonPill goes to the stash instead of stopping the actor (ActorContext::holdPoisonPill()). */
    public bool $holdPoisonPill = false;
    /** @var array{float, mixed, int}|null seconds, message, loop timer id */
    public ?array $receiveTimeout = null;
    public float $lastActivity = 0.0;
    /** @var list<Deferred<null>> senders waiting for room in a full mailbox */
    public array $roomWaiters = [];
    /** @var list<float> when this actor was restarted recently (kept by its supervisor) */
    public array $restarts = [];
    public ?\Throwable $restartReason = null;
}
