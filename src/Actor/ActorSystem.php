<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Actor\Event\ActorFailed;
use Nexus\Actor\Exception\ActorStoppingException;
use Nexus\Actor\Internal\ActorCell;
use Nexus\Actor\Internal\AskTimeouts;
use Nexus\Actor\Internal\LocalActorRef;
use Nexus\Actor\Internal\SystemMessage;
use Nexus\Actor\Internal\SystemMessageKind;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Actor\Supervision\Directive;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\DeadlockException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Scheduler;
use Psr\Log\LoggerInterface;

/**
 * A tree of actors on one event loop:
 *
 *     /            the root guardian
 *     /user        parent of everything spawn() starts
 *     /system      parent of the runtime's own actors
 *
 * An exception in a handler never ends the process: it is logged (PSR-3, with the actor's path),
 * published as ActorFailed and handed to the actor's supervisor.
 */
final class ActorSystem
{
    public readonly Loop $loop;
    public readonly Scheduler $scheduler;
    public readonly LoggerInterface $logger;
    public readonly EventStream $eventStream;
    public readonly DeadLetters $deadLetters;
    /** Figures for observability (ask timeouts, sampled processing time), read at scrape time. */
    public readonly ActorStats $stats;
    /** @internal the timeouts of local asks */
    public readonly AskTimeouts $askTimeouts;
    /**
     * The next actor turn is timed for ActorStats (set by enableStats()'s timer).
     *
     * @internal
     */
    public bool $sampleNextTurn = false;
    private ?int $statsTimer = null;
    /** The strategy for actors whose parent sets none, top-level actors included. */
    public readonly SupervisorStrategy $defaultStrategy;

    private readonly ActorCell $root;
    private readonly ActorCell $userGuardian;
    private readonly ActorCell $systemGuardian;
    /** @var Deferred<null> */
    private readonly Deferred $terminated;
    private int $anonymousCount = 0;
    /** @var array<string, ActorRef> refs lookup() answers for paths that live elsewhere (another worker) */
    private array $aliases = [];
    private bool $shuttingDown = false;
    private ?int $deadlineTimer = null;

    /**
     * @param int $throughput how many messages an actor handles before the next actor gets a turn
     */
    public function __construct(
        public readonly string $name = 'nexus',
        ?LoggerInterface $logger = null,
        ?Loop $loop = null,
        ?SupervisorStrategy $defaultStrategy = null,
        public readonly int $throughput = 64,
    ) {
        if ($throughput < 1) {
            throw new \InvalidArgumentException("Throughput must be at least 1 message per turn, got {$throughput}.");
        }
        $this->loop = $loop ?? new Loop();
        $this->scheduler = $this->loop->scheduler();
        $this->logger = $logger ?? new StderrLogger();
        $this->eventStream = new EventStream();
        $this->stats = new ActorStats();
        $this->askTimeouts = new AskTimeouts($this->loop);
        $this->deadLetters = new DeadLetters($this->eventStream, $this->logger, $this->loop);
        $this->defaultStrategy = $defaultStrategy ?? SupervisorStrategy::default();
        $this->terminated = new Deferred($this->loop);
        $this->loop->setErrorHandler(function (\Throwable $error): void {
            $this->logger->error('A loop callback failed: {error}', ['error' => $error->getMessage(), 'exception' => $error]);
        });

        // A guardian never gives up: what escalates to the root is logged and the guardian resumed.
        $rootProps = Props::fromBehavior(Behavior::ignore())->withKind('guardian')
            ->withSupervisor(SupervisorStrategy::oneForOne(static fn(): Directive => Directive::Resume));
        $this->root = new ActorCell($this, null, '', $rootProps);
        $this->root->startNow();
        $guardianProps = Props::fromBehavior(Behavior::ignore())->withKind('guardian');
        $userRef = $this->root->spawn($guardianProps->withSupervisor($this->defaultStrategy), 'user');
        $systemRef = $this->root->spawn($guardianProps, 'system');
        \assert($userRef instanceof LocalActorRef && $systemRef instanceof LocalActorRef);
        $this->userGuardian = $userRef->cell;
        $this->systemGuardian = $systemRef->cell;
    }

    /**
     * Starts a top-level actor under /user.
     */
    public function spawn(Props|Behavior $props, ?string $name = null): ActorRef
    {
        if ($this->shuttingDown) {
            throw new ActorStoppingException("The actor system '{$this->name}' is shutting down and starts no new actors.");
        }

        return $this->userGuardian->spawn($props, $name);
    }

    /**
     * Starts an actor of the runtime itself under /system.
     */
    public function spawnSystemActor(Props|Behavior $props, ?string $name = null): ActorRef
    {
        return $this->systemGuardian->spawn($props, $name);
    }

    /**
     * Stops an actor after the message it is handling; what is still queued goes to dead letters.
     */
    public function stop(ActorRef $ref): void
    {
        if ($ref instanceof LocalActorRef) {
            $ref->cell->sendSystem(new SystemMessage(SystemMessageKind::Stop));
        }
    }

    /**
     * Finds a live actor by its path (/user/orders/o-1); null when none lives there.
     */
    public function lookup(string $path): ?ActorRef
    {
        $cell = $this->cellAt($path);
        if ($cell === null) {
            return $this->aliases === [] ? null : ($this->aliases['/' . trim($path, '/')] ?? null);
        }

        return $cell->status === ActorCell::TERMINATED ? null : $cell->ref;
    }

    /**
     * The live local actor at $path as a transport sees it (Endpoint), or null: unlike lookup(),
     * never an alias of an actor that lives in another process.
     */
    public function endpoint(string $path): ?Endpoint
    {
        $cell = $this->cellAt($path);

        return $cell === null || $cell->status === ActorCell::TERMINATED ? null : $cell->ref;
    }

    /**
     * The cell at $path in this process's tree (terminated or not), or null.
     */
    private function cellAt(string $path): ?ActorCell
    {
        $cell = $this->root;
        foreach (explode('/', trim($path, '/')) as $segment) {
            if ($segment === '') {
                continue;
            }
            $cell = $cell->children[$segment] ?? null;
            if ($cell === null) {
                return null;
            }
        }

        return $cell;
    }

    /**
     * The actor whose turn is running now (the sender a tell() defaults to), or null outside
     * any actor's turn.
     */
    public function currentActor(): ?ActorRef
    {
        $current = $this->scheduler->current;

        return $current instanceof ActorCell ? $current->ref : null;
    }

    /**
     * Starts keeping ActorStats' sampled processing time and the messages processed by actors
     * that stop (the admin view calls it): a timer marks the next turn for timing
     * ActorStats::SAMPLES_PER_SECOND times a second. It does not keep the loop alive.
     */
    public function enableStats(): void
    {
        if ($this->statsTimer !== null) {
            return;
        }
        $this->stats->enabled = true;
        $this->statsTimer = $this->loop->repeat(1.0 / ActorStats::SAMPLES_PER_SECOND, function (): void {
            $this->sampleNextTurn = true;
        });
        $this->loop->unreference($this->statsTimer);
        $this->whenTerminated()->onSettle(function (): void {
            if ($this->statsTimer !== null) {
                $this->loop->cancel($this->statsTimer);
                $this->statsTimer = null;
            }
        });
    }

    /**
     * Walks the live actors, parents before children (the root itself left out), and calls
     * $visit(path, kind, mailbox depth, messages processed) for each, at most $limit times.
     * Returns how many were visited. It reads plain fields and allocates nothing per actor
     * beyond the walk's stack; call it at scrape time, not per message: it costs about a
     * microsecond per actor.
     *
     * @param \Closure(string, string, int, int): void $visit
     */
    public function inspect(\Closure $visit, int $limit = \PHP_INT_MAX): int
    {
        $visited = 0;
        $stack = array_reverse(array_values($this->root->children));
        while ($stack !== [] && $visited < $limit) {
            $cell = array_pop($stack);
            if ($cell->status === ActorCell::TERMINATED) {
                continue;
            }
            ++$visited;
            $visit($cell->path, $cell->kind(), $cell->mailbox->count(), $cell->processed);
            if ($cell->children !== []) {
                foreach (array_reverse($cell->children) as $child) {
                    $stack[] = $child;
                }
            }
        }

        return $visited;
    }

    /**
     * Makes lookup($path) answer $ref while no local actor lives there: the worker pool registers
     * the named actors that live on other workers, so that #[Actor('name')] finds them too.
     *
     * @internal
     */
    public function alias(string $path, ActorRef $ref): void
    {
        $this->aliases['/' . trim($path, '/')] = $ref;
    }

    /**
     * Stops every actor, leaf-first (children before parents, /user before /system). Actors that
     * have not stopped after $deadline seconds (a handler waiting on something slow, say) are
     * stopped hard. The future settles once the system has terminated.
     *
     * @return Future<null>
     */
    public function shutdown(float $deadline = 10.0): Future
    {
        if (!$this->shuttingDown && !$this->terminated->isSettled()) {
            $this->shuttingDown = true;
            $this->deadlineTimer = $this->loop->delay($deadline, function () use ($deadline): void {
                $this->deadlineTimer = null;
                $this->forceStop($deadline);
            });
            $this->userGuardian->sendSystem(new SystemMessage(SystemMessageKind::Stop));
        }

        return $this->terminated->future();
    }

    /**
     * @return Future<null> settles when the system has terminated
     */
    public function whenTerminated(): Future
    {
        return $this->terminated->future();
    }

    public function isTerminated(): bool
    {
        return $this->terminated->isSettled();
    }

    /**
     * Runs the loop until the system has terminated (after shutdown()). Throws DeadlockException
     * when nothing on the loop could ever lead to that.
     */
    public function run(): void
    {
        while (!$this->terminated->isSettled()) {
            if (!$this->loop->tick()) {
                throw new DeadlockException(
                    "The actor system '{$this->name}' is idle and nothing left on the loop can stop it: call shutdown() from a handler, a timer or a signal handler.",
                );
            }
        }
    }

    /**
     * @internal
     */
    public function nextAnonymousName(): string
    {
        return '$' . ++$this->anonymousCount;
    }

    /**
     * Logs a failure with the actor's path and publishes it as ActorFailed.
     *
     * @internal
     */
    public function reportFailure(ActorRef $actor, \Throwable $error, mixed $message, ?string $stage = null): void
    {
        $this->logger->error('Actor {actor} failed{stage}: {error}', [
            'actor' => $actor->path(),
            'stage' => $stage === null ? '' : " in {$stage}",
            'error' => $error::class . ': ' . $error->getMessage(),
            'exception' => $error,
        ]);
        if ($this->eventStream->hasSubscribers(ActorFailed::class)) {
            $this->eventStream->publish(new ActorFailed($actor, $error, $message));
        }
    }

    /**
     * @internal the root saw a guardian terminate: shut down in order
     */
    public function guardianTerminated(ActorCell $guardian): void
    {
        if ($guardian === $this->userGuardian) {
            $this->shuttingDown = true;
            $this->systemGuardian->sendSystem(new SystemMessage(SystemMessageKind::Stop));
        } elseif ($guardian === $this->systemGuardian) {
            $this->root->sendSystem(new SystemMessage(SystemMessageKind::Stop));
        }
    }

    /**
     * @internal
     */
    public function rootTerminated(): void
    {
        if ($this->deadlineTimer !== null) {
            $this->loop->cancel($this->deadlineTimer);
            $this->deadlineTimer = null;
        }
        $this->terminated->tryResolve(null);
    }

    private function forceStop(float $deadline): void
    {
        $count = $this->root->forceTerminate();
        $this->logger->warning('{count} actors had not stopped {deadline} s after shutdown began and were stopped hard.', [
            'count' => $count,
            'deadline' => $deadline,
        ]);
        $this->terminated->tryResolve(null);
    }
}
