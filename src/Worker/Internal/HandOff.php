<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\Terminated;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Worker\Codec\Internal\HandOffComplete;

/**
 * A worker's named actors and entities passing to the worker that replaces it in a reload, so
 * that there is never more than one live copy of each, and nothing they held is lost.
 *
 *  - The new worker (it finds a live predecessor behind its slot's socket at start) holds its
 *    placed actors: each is created, but its behavior is made only once the hand-off is complete
 *    (messages queue in its mailbox meanwhile). Messages for them that arrive from other workers
 *    are kept in a buffer (at most BUFFER_LIMIT; beyond, the links that bring them stop reading),
 *    behind those the predecessor forwards, which are delivered at once.
 *  - The old worker, on SIGTERM (handOff()), tells the workers linked to it to send elsewhere
 *    once their messages in flight are confirmed, stops its placed actors with a PoisonPill (each
 *    after the messages queued before it and a write in flight; entities before their kind's
 *    region), forwards to the new worker whatever arrives for them afterwards, and then sends
 *    HandOffComplete.
 *  - The new worker starts its copies when HandOffComplete arrives, when the predecessor's
 *    process is gone, or after TIMEOUT at the latest.
 *
 * Order per sender is kept: what the predecessor held comes first, then what was kept here, then
 * the rest. Watchers of a handed-off actor see it terminate.
 *
 * @internal
 */
final class HandOff
{
    public const DELIVER = 0;
    public const HANDLED = 1;
    public const WAIT = 2;
    /** Messages kept for held actors at most; beyond this the links bringing more stop reading. */
    public const BUFFER_LIMIT = 65_536;
    /** The longest a new worker holds its actors for a predecessor that does not finish. */
    public const TIMEOUT = 10.0;
    private const PREDECESSOR_POLL = 0.05;

    /** @var array<string, true> named actors and entity kinds placed on this worker, by name under /user */
    private array $placed = [];
    /** @var Deferred<null>|null settles when held actors may start (new worker) */
    private ?Deferred $gate = null;
    private string $predecessorSocket = '';
    /** @var list<array{string, mixed, ?ActorRef}> */
    private array $buffer = [];
    /** @var list<int> */
    private array $timers = [];
    private bool $handingOff = false;
    private bool $completeSent = false;
    /** The pill that stops the old copies during a hand-off: never passed on to the new ones. */
    private ?PoisonPill $pill = null;
    /** @var Deferred<null>|null settles once the old copies have all stopped (old worker) */
    private ?Deferred $completed = null;
    /** @var array<string, Endpoint> the placed actors this worker stops and hands off */
    private array $stopping = [];

    public function __construct(private readonly Mesh $mesh) {}

    // ---- the new worker ----------------------------------------------------------------------

    public function expectPredecessor(string $socket, int $pid): void
    {
        $loop = $this->mesh->system->loop;
        $this->predecessorSocket = $socket;
        $this->gate = new Deferred($loop);
        $this->timers[] = $loop->delay(self::TIMEOUT, function (): void {
            $this->open('the worker it replaces did not hand its actors off within ' . self::TIMEOUT . ' s');
        });
        $poll = $loop->repeat(self::PREDECESSOR_POLL, function () use ($socket, $pid): void {
            if (!self::isAlive($socket, $pid)) {
                $this->open('the worker it replaces is gone');
            }
        });
        $loop->unreference($poll);
        $this->timers[] = $poll;
        $this->mesh->system->logger->info('Worker {id} holds its named actors and entities until the worker it replaces hands them off.', ['id' => $this->mesh->id]);
    }

    /**
     * Whether the worker behind $socket (process $pid) still runs: it removes its socket when it
     * stops, and a killed one leaves no process.
     */
    public static function isAlive(string $socket, int $pid): bool
    {
        clearstatcache(true, $socket);

        return file_exists($socket) && posix_kill($pid, 0);
    }

    public function predecessorSocket(): string
    {
        return $this->predecessorSocket;
    }

    /**
     * Whether links claiming this worker's own number as its predecessor may be accepted.
     */
    public function expectsPredecessor(): bool
    {
        return $this->predecessorSocket !== '';
    }

    public function predecessorDone(): void
    {
        $this->open(null);
    }

    /**
     * Props whose behavior is made only once the hand-off is complete (the props themselves when
     * there is none to wait for).
     */
    public function gated(Props|Behavior $props): Props|Behavior
    {
        if ($this->gate === null || $this->gate->isSettled()) {
            return $props;
        }
        if ($props instanceof Behavior) {
            $props = Props::fromBehavior($props);
        }
        $gate = $this->gate->future();
        $factory = $props->factory;
        $held = Props::fromFactory(static function () use ($factory, $gate): mixed {
            if (!$gate->isSettled()) {
                $gate->await();
            }

            return $factory();
        })->withStashCapacity($props->stashCapacity);
        if ($props->mailboxCapacity !== \PHP_INT_MAX) {
            $held = $held->withMailbox($props->mailboxCapacity, $props->overflow);
        }

        $held = $held->withPlacementEpoch($props->placementEpoch);

        return $props->supervisor === null ? $held : $held->withSupervisor($props->supervisor);
    }

    // ---- placement ---------------------------------------------------------------------------

    /**
     * $name (under /user) is a named actor or an entity kind that lives on this worker.
     */
    public function place(string $name, ?Endpoint $ref): void
    {
        $this->placed[$name] = true;
        if ($ref !== null) {
            $this->stopping[$name] = $ref;
        }
    }

    public function isPlaced(string $path): bool
    {
        if ($this->placed === [] || !str_starts_with($path, '/user/')) {
            return false;
        }
        $end = strpos($path, '/', 6);

        return isset($this->placed[$end === false ? substr($path, 6) : substr($path, 6, $end - 6)]);
    }

    // ---- routing -----------------------------------------------------------------------------

    /**
     * Whether deliveries must pass through route() (a hand-off is under way).
     */
    public function active(): bool
    {
        return ($this->gate !== null && !$this->gate->isSettled()) || $this->handingOff;
    }

    /**
     * What to do with a message from another worker during a hand-off: deliver it as usual,
     * nothing (it was kept or forwarded), or wait (no room to keep or forward it).
     */
    public function route(string $path, mixed $message, ?ActorRef $sender, int $selfAlias, bool $force): int
    {
        if (!$this->isPlaced($path)) {
            return self::DELIVER;
        }
        if ($this->gate !== null && !$this->gate->isSettled()) {
            if ($selfAlias === Mesh::PREDECESSOR) {
                return self::DELIVER; // what the predecessor held comes first
            }
            if (\count($this->buffer) >= self::BUFFER_LIMIT) {
                return $force ? self::DELIVER : self::WAIT;
            }
            $this->buffer[] = [$path, $message, $sender];

            return self::HANDLED;
        }
        if ($this->handingOff && !$force && $this->mesh->successorCongested()) {
            return self::WAIT;
        }

        return self::DELIVER;
    }

    private function open(?string $why): void
    {
        if ($this->gate === null || $this->gate->isSettled()) {
            return;
        }
        foreach ($this->timers as $timer) {
            $this->mesh->system->loop->cancel($timer);
        }
        $this->timers = [];
        if ($why !== null) {
            $this->mesh->system->logger->warning('Worker {id} starts its named actors and entities: {why}.', ['id' => $this->mesh->id, 'why' => $why]);
        }
        $buffer = $this->buffer;
        $this->buffer = [];
        $this->gate->resolve(null);
        foreach ($buffer as [$path, $message, $sender]) {
            try {
                $this->mesh->deliver($path, $message, $sender);
            } catch (\Throwable $e) {
                $this->mesh->system->loop->reportError($e);
            }
        }
    }

    /**
     * A reply for the other process of this slot during a reload (it reached this one through a
     * link opened before the switch, its /temp address names the other's generation): passed on
     * to it. False when there is none to pass it to.
     */
    public function passReply(string $path, mixed $message, ?ActorRef $sender): bool
    {
        $generation = ReplyAddresses::generationOf($path);
        if ($generation > $this->mesh->generation && $this->hasSuccessor()) {
            $this->mesh->forward(Mesh::SUCCESSOR, $path, $message, $sender);

            return true;
        }
        if ($generation > 0 && $generation < $this->mesh->generation && $this->expectsPredecessor()) {
            $this->mesh->forward(Mesh::PREDECESSOR, $path, $message, $sender);

            return true;
        }

        return false;
    }

    // ---- the old worker ----------------------------------------------------------------------

    /**
     * Takes over what a placed actor stopped for the hand-off still had queued: it goes to the
     * successor (never the hand-off's own pill). False when no hand-off is under way.
     */
    public function redirect(mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): bool
    {
        if ($this->pill === null || $message === $this->pill || $reason !== DeadLetterReason::RecipientTerminated || !$this->isPlaced($recipient)) {
            return false;
        }

        return $this->forward($recipient, $message, $sender);
    }

    /**
     * Whether a worker replaces this one now (its slot's socket name points elsewhere).
     */
    public function hasSuccessor(): bool
    {
        $link = substr($this->mesh->socketAddress(Mesh::SUCCESSOR), \strlen('unix://'));
        $target = @readlink($link);

        return \is_string($target) && $target !== $this->mesh->localSocket() && file_exists($target);
    }

    public function isHandingOff(): bool
    {
        return $this->handingOff;
    }

    /**
     * Settles once the placed actors this worker hands off have all stopped (each after the
     * messages queued before its pill and its write in flight); at once when it hands nothing off.
     *
     * @return Future<null>
     */
    public function completed(): Future
    {
        if (!$this->handingOff || $this->completeSent) {
            return Future::fulfilled($this->mesh->system->loop, null);
        }

        return ($this->completed ??= new Deferred($this->mesh->system->loop))->future();
    }

    /**
     * Starts handing the placed actors off to the successor; does nothing when there is none.
     */
    public function start(): bool
    {
        if ($this->handingOff || !$this->hasSuccessor()) {
            return $this->handingOff;
        }
        $this->handingOff = true;
        $system = $this->mesh->system;
        // The pill that stops the old copies: never passed on to the new ones (a copy stopped
        // hard, by a shutdown, leaves it among its dead letters).
        $pill = $this->pill = new PoisonPill();
        $alive = [];
        foreach ($this->stopping as $name => $ref) {
            if (!$ref->isTerminated()) {
                $alive[$name] = $ref;
            }
        }
        $system->logger->info('Worker {id} hands {count} named actors and entity kinds off to the worker that replaces it.', ['id' => $this->mesh->id, 'count' => \count($alive)]);
        if ($alive === []) {
            $this->complete();

            return true;
        }
        $system->spawnSystemActor(Behavior::setup(function (ActorContext $ctx) use ($alive, $pill): Behavior {
            // Each placed actor and each of its children (the entities of a kind) stops by a
            // PoisonPill: after the messages queued before it, and after a write in flight (a
            // persistent actor holds the pill until its write is stored). A parent goes once
            // its children are gone, so none of them is stopped in the middle of its work.
            /** @var array<string, array{Endpoint, int}> $parents by path: the ref, children left */
            $parents = [];
            /** @var array<string, string> $parentOf parent paths by child path */
            $parentOf = [];
            foreach ($alive as $ref) {
                $children = $ref->children();
                $parents[$ref->path()] = [$ref, \count($children)];
                foreach ($children as $child) {
                    $parentOf[$child->path()] = $ref->path();
                    $ctx->watch($child);
                    $child->tell($pill);
                }
                if ($children === []) {
                    $ctx->watch($ref);
                    $ref->tell($pill);
                }
            }
            $left = \count($alive);

            return Behavior::receive(function (mixed $message, ActorContext $ctx) use (&$left, &$parents, &$parentOf, $pill): void {
                if (!$message instanceof Terminated) {
                    return;
                }
                $parent = $parentOf[$message->ref->path()] ?? null;
                if ($parent !== null) {
                    unset($parentOf[$message->ref->path()]);
                    [$ref, $children] = $parents[$parent];
                    $parents[$parent] = [$ref, --$children];
                    if ($children === 0) {
                        $ctx->watch($ref);
                        $ref->tell($pill);
                    }

                    return;
                }
                if (--$left === 0) {
                    $this->complete();
                    $ctx->stop();
                }
            })->onSignal(function (Signal $signal): null {
                // Stopped before the last Terminated came (a shutdown stops /system once /user
                // is gone): every placed actor has stopped by then.
                if ($signal instanceof PostStop) {
                    $this->complete();
                }

                return null;
            });
        }), 'nexus-handoff');

        return true;
    }

    /**
     * Whether a message for $path, which no local actor takes, goes to the successor.
     */
    public function forwards(string $path): bool
    {
        return $this->handingOff && $this->isPlaced($path) && $this->mesh->system->lookup($path) === null;
    }

    public function forward(string $path, mixed $message, ?ActorRef $sender): bool
    {
        try {
            $this->mesh->forward(Mesh::SUCCESSOR, $path, $message, $sender);
        } catch (\Throwable $e) {
            $this->mesh->system->logger->warning('A message for {path} could not be passed to the worker replacing this one: {error}', ['path' => $path, 'error' => $e->getMessage()]);

            return false;
        }

        return true;
    }

    /**
     * The mesh stops: a hand-off not started yet starts now (its actors are already stopped).
     */
    public function leaving(): void
    {
        if (!$this->handingOff) {
            $this->start();
        }
        if ($this->handingOff) {
            $this->complete();
        }
        foreach ($this->timers as $timer) {
            $this->mesh->system->loop->cancel($timer);
        }
        $this->timers = [];
    }

    private function complete(): void
    {
        if ($this->completeSent) {
            return;
        }
        $this->completeSent = true;
        $this->completed?->tryResolve(null);
        foreach ($this->stopping as $name => $_) {
            $this->mesh->system->alias("/user/{$name}", $this->mesh->remoteRef(Mesh::SUCCESSOR, "/user/{$name}"));
        }
        $this->mesh->sendControl(Mesh::SUCCESSOR, '/system/nexus-handoff', new HandOffComplete(), null);
    }
}
