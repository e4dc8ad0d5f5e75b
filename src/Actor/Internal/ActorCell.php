<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\Actor;
use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\BehaviorKind;
use Nexus\Actor\Event\ActorRestarted;
use Nexus\Actor\Event\ActorStarted;
use Nexus\Actor\Event\ActorStopped;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Event\UnhandledMessage;
use Nexus\Actor\Exception\ActorInitializationException;
use Nexus\Actor\Exception\ActorKilledException;
use Nexus\Actor\Exception\ActorNameTakenException;
use Nexus\Actor\Exception\ActorStoppingException;
use Nexus\Actor\Exception\InvalidActorNameException;
use Nexus\Actor\Exception\MailboxFullException;
use Nexus\Actor\Exception\RestartLimitExceededException;
use Nexus\Actor\Exception\StashOverflowException;
use Nexus\Actor\Mailbox\EnqueueResult;
use Nexus\Actor\Mailbox\Mailbox;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Message\AutoReceived;
use Nexus\Actor\Message\Kill;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\ReceiveTimeout;
use Nexus\Actor\Message\Terminated;
use Nexus\Actor\Message\Traced;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\RemoteWatchable;
use Nexus\Actor\ReplyAddress;
use Nexus\Actor\Signal\PostRestart;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\PreRestart;
use Nexus\Actor\Signal\PreStart;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Directive;
use Nexus\Actor\Supervision\SupervisionScope;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\Actor\TimerScheduler;
use Nexus\Log\ContextLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Runnable;
use Nexus\Trace\Span;
use Nexus\Trace\SpanKind;
use Nexus\Trace\Tracing;
use Psr\Log\LoggerInterface;

/**
 * One actor: its mailbox, current behavior, children, watchers, timers and lifecycle. It is the
 * ActorContext handed to handlers and the Runnable the scheduler runs.
 *
 * Life of a message: tell() -> deliver() appends message and sender to the mailbox and, if the actor was
 * idle, puts it on the run queue once; run() then handles up to `throughput` messages, system
 * messages (stop, supervision, watch) first, and puts itself back on the queue if more remain.
 *
 * @internal users see ActorRef and ActorContext
 */
final class ActorCell implements ActorContext, Runnable
{
    public const NEW = 0;
    public const RUNNING = 1;
    /** failed, waiting for its supervisor (or a backoff) */
    public const SUSPENDED = 2;
    /** waiting for its children to stop before it is recreated */
    public const RESTARTING = 3;
    /** waiting for its children to stop before it terminates */
    public const STOPPING = 4;
    public const TERMINATED = 5;

    // The fields set once are @readonly for PHPStan, not `readonly` for PHP: PHP 8.2's tracing
    // JIT writes a readonly field through the interpreter's slow path, about 100 instructions
    // more per field, and a cell (like a system message) is made on the lifecycle's hot path.
    /** @readonly */
    public LocalActorRef $ref;
    /** @readonly */
    public string $path;
    /** @readonly */
    public Mailbox $mailbox;
    public int $status = self::NEW;
    /** On the run queue, or running. @internal read by LocalActorRef::ask() */
    public bool $scheduled = false;
    /** @var list<SystemMessage> */
    private array $systemMessages = [];

    private ?\Closure $handler = null;
    /** The state of a withState() behavior; Stateless::Instance for the others. */
    private mixed $state = Stateless::Instance;
    private ?\Closure $onSignal = null;
    /**
     * The message being handled, NoMessage::Instance between messages, or
     * TakenFromMailbox::Instance while it is the one the run loop took from the mailbox last
     * (then $currentSender is not used: see message() and sender()).
     */
    private mixed $currentMessage = NoMessage::Instance;
    private ?ActorRef $currentSender = null;

    /** @var array<string, ActorCell> */
    public array $children = [];
    /** Watches, timers, stash, receive timeout, restart records: created on first use. */
    public ?CellExtras $extras = null;
    /** Messages handled so far (added once per turn, not per message). */
    public int $processed = 0;

    public function __construct(
        /** @readonly */
        public ActorSystem $system,
        /** @readonly */
        public ?ActorCell $parent,
        string $name,
        /** @readonly */
        public Props $props,
    ) {
        $this->path = $parent === null ? '/' : ($parent->parent === null ? '/' . $name : $parent->path . '/' . $name);
        $this->ref = new LocalActorRef($this);
        $this->mailbox = $props->createMailbox();
    }

    /**
     * What kind of actor this is, for metrics: the Props' kind, else the Actor class, else where
     * its handler was written (File.php:12). Worked out when asked (reflection: about a
     * microsecond), so that an actor carries no more for it.
     */
    public function kind(): string
    {
        if ($this->props->kind !== null) {
            return $this->props->kind;
        }
        if ($this->handler === null) {
            return 'behavior'; // not started yet, or stopped
        }
        $function = new \ReflectionFunction($this->handler);
        $actor = $function->getClosureScopeClass()?->name === self::class
            ? $function->getClosureUsedVariables()['actor'] ?? null // an Actor's handler (installActor())
            : $function->getClosureThis();
        if ($actor instanceof Actor) {
            return $actor::class;
        }
        $file = $function->getFileName();

        return $file === false ? 'behavior' : basename($file) . ':' . $function->getStartLine();
    }

    /**
     * The last segment of the path: derived, so that an actor carries one string, not two.
     */
    public function name(): string
    {
        return substr($this->path, strrpos($this->path, '/') + 1);
    }

    // ---- delivery (called by refs, timers, other actors) -------------------------------------

    public function deliver(mixed $message, ?ActorRef $sender): void
    {
        if ($this->status === self::TERMINATED) {
            $this->deadLetter($message, $sender, DeadLetterReason::RecipientTerminated);

            return;
        }
        if (!$this->mailbox->offer($message, $sender)) {
            if ($this->mailbox->overflow === OverflowPolicy::DropOldest) {
                $this->pin(); // dropping the oldest moves the mailbox's head
            }
            if (!$this->overflow($this->mailbox->enqueue($message, $sender), $message, $sender)) {
                return;
            }
        }
        if (!$this->scheduled) {
            $this->scheduled = true;
            $this->system->scheduler->schedule($this);
        }
    }

    /**
     * Stops this actor after the message in hand: $pill goes ahead of what is queued (see
     * Endpoint::stopAfterCurrent()).
     */
    public function stopAfterCurrent(PoisonPill $pill): void
    {
        if ($this->status >= self::STOPPING) {
            return;
        }
        $this->pin();
        $this->mailbox->prepend([[$pill, null]]);
        if (!$this->scheduled) {
            $this->scheduled = true;
            $this->system->scheduler->schedule($this);
        }
    }

    public function sendSystem(SystemMessage $message): void
    {
        if ($this->status === self::TERMINATED) {
            if ($message->kind === SystemMessageKind::Watch && $message->cell !== null) {
                $message->cell->sendSystem(new SystemMessage(SystemMessageKind::DeathNotice, $this));
            }

            return;
        }
        $this->systemMessages[] = $message;
        if (!$this->scheduled) {
            $this->scheduled = true;
            $this->system->scheduler->schedule($this);
        }
    }

    /**
     * Starts a guardian at once, outside the run queue.
     */
    public function startNow(): void
    {
        $this->start();
    }

    // ---- the run loop ---------------------------------------------------------------------------

    public function run(): void
    {
        $system = $this->system;
        // The scheduler made this actor its current runnable: the implicit sender of its tells.
        // Set a few times a second while stats are enabled: the next turn is timed.
        $timed = $system->sampleNextTurn ? hrtime(true) : 0;
        // count() and not `!== []` on the hot paths: the tracing JIT compiles count() inline but
        // compares arrays with === through a call (about 90 instructions against 20).
        if (\count($this->systemMessages) !== 0) {
            $this->processSystemMessages();
        }
        if ($this->status === self::NEW) {
            $this->start();
        }
        $mailbox = $this->mailbox;
        $budget = $throughput = $system->throughput;
        while ($budget > 0 && $this->status === self::RUNNING) {
            $messages = $mailbox->peek($budget, $senders);
            if (\count($messages) === 0) {
                break;
            }
            if ($this->extras?->receiveTimeout !== null) {
                // Once per batch, not per message: the loop's time does not move within a turn.
                $this->extras->lastActivity = $this->system->loop->now();
            }
            $generation = $mailbox->generation;
            // The message in hand is the mailbox's last taken one: nothing to write per message
            // (two typed fields cost more than the rest of the loop). Whatever changes the
            // mailbox's layout during a handler pins it first (pin()).
            $this->currentMessage = TakenFromMailbox::Instance;
            foreach ($messages as $i => $message) {
                // Taken before it is handled: an unstash or a stop during the handler sees the
                // rest of this batch still in the mailbox, in order.
                ++$mailbox->head;
                --$budget;
                if ($message instanceof AutoReceived) {
                    $this->autoReceive($message, $senders[$i]);
                    if ($mailbox->generation === $generation) {
                        $this->currentMessage = TakenFromMailbox::Instance;
                    }
                } else {
                    // handle() for a user message, written out: a call per message is a fair
                    // part of its cost.
                    try {
                        \assert($this->handler !== null);
                        $state = $this->state;
                        if ($state instanceof Stateless) {
                            $next = ($this->handler)($message, $this);
                            if ($next instanceof Behavior && $next->kind !== BehaviorKind::Same) {
                                $this->transition($next, $message);
                            }
                        } else {
                            $next = ($this->handler)($state, $message, $this);
                            if (!$next instanceof Behavior) {
                                $this->state = $next;
                            } elseif ($next->kind !== BehaviorKind::Same) {
                                $this->transition($next, $message);
                            }
                        }
                    } catch (\Throwable $e) {
                        $this->fail($e);
                    }
                }
                if (\count($this->systemMessages) !== 0) {
                    $this->processSystemMessages();
                }
                if ($this->status !== self::RUNNING || $mailbox->generation !== $generation) {
                    continue 2;
                }
            }
        }
        $mailbox->reclaim();
        // (Written only when it changes: a turn of system messages alone, a parent told that a
        // child stopped, handles no message.)
        if ($budget !== $throughput) {
            $this->processed += $throughput - $budget;
        }
        if ($timed !== 0) {
            $system->sampleNextTurn = false;
            $system->stats->sampled($this->kind(), $throughput - $budget, (hrtime(true) - $timed) / 1e9);
        }
        $this->currentMessage = NoMessage::Instance;
        if ($this->currentSender !== null) {
            $this->currentSender = null; // set only for a message handled other than through the mailbox
        }
        if ($this->extras !== null && \count($this->extras->roomWaiters) !== 0) {
            $this->releaseRoomWaiters();
        }
        if (\count($this->systemMessages) !== 0 || ($this->status === self::RUNNING && !$mailbox->isEmpty())) {
            $this->system->scheduler->schedule($this);
        } else {
            $this->scheduled = false;
        }
    }

    private function invoke(mixed $message, ?ActorRef $sender): void
    {
        if ($message instanceof AutoReceived) {
            $this->autoReceive($message, $sender);

            return;
        }
        $this->currentMessage = $message;
        $this->currentSender = $sender;
        try {
            $this->handle($message);
        } catch (\Throwable $e) {
            $this->fail($e);
        }
    }

    /**
     * Runs the behavior's handler on a user message and applies what it returns: the next state
     * of a withState() behavior, or the next behavior. What the handler throws is the caller's.
     * (The run loop does the same steps written out, see run().)
     */
    private function handle(mixed $message): void
    {
        \assert($this->handler !== null);
        if ($this->state !== Stateless::Instance) {
            $next = ($this->handler)($this->state, $message, $this);
            if (!$next instanceof Behavior) {
                $this->state = $next;
            } elseif ($next->kind !== BehaviorKind::Same) {
                $this->transition($next, $message);
            }
        } else {
            $next = ($this->handler)($message, $this);
            if ($next instanceof Behavior && $next->kind !== BehaviorKind::Same) {
                $this->transition($next, $message);
            }
        }
    }

    /**
     * A message sent from traced work: handled under its trace context, in a span of its own
     * when a tracer is installed (messages of the runtime's own, such as PoisonPill, get none).
     */
    private function receiveTraced(Traced $traced, ?ActorRef $sender): void
    {
        $message = $traced->message;
        $scheduler = $this->system->scheduler;
        $previous = $scheduler->trace;
        $tracer = Tracing::$tracer;
        $span = $tracer === null || $message instanceof AutoReceived ? null : $tracer->startSpan(
            'process ' . get_debug_type($message),
            SpanKind::Consumer,
            $traced->context,
            [
                'nexus.actor.path' => $this->path,
                'nexus.actor.kind' => $this->pathKind(),
                'nexus.message.type' => get_debug_type($message),
            ],
        );
        $scheduler->trace = $span?->context() ?? $traced->context;
        try {
            if ($span === null) {
                $this->invoke($message, $sender);
            } else {
                $this->invokeInSpan($message, $sender, $span);
            }
        } finally {
            $scheduler->trace = $previous;
            $span?->end();
        }
    }

    /**
     * invoke() for a user message with a span, which a failure marks.
     */
    private function invokeInSpan(mixed $message, ?ActorRef $sender, Span $span): void
    {
        $this->currentMessage = $message;
        $this->currentSender = $sender;
        try {
            $this->handle($message);
        } catch (\Throwable $e) {
            $span->fail($e);
            $this->fail($e);
        }
    }

    /**
     * The kind of actor, for grouping spans: a top-level actor (a child of /user or /system) by
     * its path, a deeper one as its parent's path with '/*' (the entities of one kind, the
     * children of one supervisor), so that ids do not make every actor a kind of its own.
     */
    private function pathKind(): string
    {
        $parent = $this->parent;
        if ($parent === null || $parent->parent === null || $parent->parent->parent === null) {
            return $this->path;
        }

        return $parent->path . '/*';
    }

    private function autoReceive(AutoReceived $message, ?ActorRef $sender): void
    {
        // By class name, not a chain of instanceof: every kind is a final class, and an instanceof
        // of a class not loaded yet (no timer, trace or remote watch in this process) looks the
        // class up by name on every call.
        switch ($message::class) {
            case PoisonPill::class:
                if ($this->extras?->holdPoisonPill === true) {
                    $this->extras->stash[] = [$message, $sender];
                } else {
                    $this->stopSelf();
                }
                break;
            case TimerFired::class:
                if ($this->extras?->timers?->accept($message) === true) {
                    $this->invoke($message->message, null);
                }
                break;
            case Traced::class:
                $this->receiveTraced($message, $sender);
                break;
            case DeathNotice::class:
                $this->deliverTerminated($message, $sender);
                break;
            case TurnCallback::class:
                $this->currentMessage = $message->message;
                $this->currentSender = $sender;
                try {
                    ($message->callback)($this);
                } catch (\Throwable $e) {
                    $this->fail($e);
                }
                break;
            case RemoteDeathNotice::class:
                $key = $message->dead->watchKey();
                $extras = $this->extras;
                $entry = $extras?->remoteWatching[$key] ?? null;
                if ($extras !== null && $entry !== null) {
                    unset($extras->remoteWatching[$key]);
                    $this->invoke($entry[1] ?? new Terminated($message->dead), $sender);
                }
                break;
            case Kill::class:
                $this->currentMessage = $message;
                $this->currentSender = $sender;
                $this->fail(new ActorKilledException("{$this->path} was killed by a Kill message."));
                break;
        }
    }

    private function transition(Behavior $next, mixed $message): void
    {
        match ($next->kind) {
            BehaviorKind::Same => null,
            BehaviorKind::Stopped => $this->stopSelf(),
            BehaviorKind::Unhandled => $this->unhandled($message),
            default => $this->installBehavior($next),
        };
    }

    private function unhandled(mixed $message): void
    {
        $events = $this->system->eventStream;
        if ($events->hasSubscribers(UnhandledMessage::class)) {
            $events->publish(new UnhandledMessage($message, $this->sender(), $this->ref));
        }
        $this->system->logger->debug('{actor} did not handle {message}.', [
            'actor' => $this->path,
            'message' => get_debug_type($message),
        ]);
    }

    // ---- system messages ------------------------------------------------------------------------

    private function processSystemMessages(): void
    {
        while (\count($this->systemMessages) !== 0) {
            $messages = $this->systemMessages;
            $this->systemMessages = [];
            foreach ($messages as $message) {
                // Handled here rather than in a method per message: a call with a class-typed
                // argument costs a type check on top of the call.
                // if/elseif with ===, not a switch: a switch compares enum cases with ==, which for
                // two different cases goes through PHP's generic object comparison.
                $kind = $message->kind;
                if ($kind === SystemMessageKind::ChildTerminated) {
                    \assert($message->cell !== null);
                    $this->childTerminated($message->cell);
                } elseif ($kind === SystemMessageKind::Failed) {
                    $this->supervise($message);
                } elseif ($kind === SystemMessageKind::Recreate) {
                    $this->restart($message->error ?? new \RuntimeException('Restart requested.'));
                } else {
                    $this->handleSystemMessage($message);
                }
            }
        }
    }

    /**
     * The system messages other than ChildTerminated, Failed and Recreate (see
     * processSystemMessages()).
     */
    private function handleSystemMessage(SystemMessage $message): void
    {
        $cell = $message->cell;
        $kind = $message->kind;
        if ($kind === SystemMessageKind::Stop) {
            $this->stopSelf();
        } elseif ($kind === SystemMessageKind::Resume) {
            if ($this->status === self::SUSPENDED) {
                if ($this->handler === null) {
                    // It failed before it ever had a behavior: nothing to resume, so start afresh.
                    $this->restart($message->error ?? new ActorInitializationException("{$this->path} was resumed before it started."));
                } else {
                    $this->status = self::RUNNING;
                }
            }
        } elseif ($kind === SystemMessageKind::Watch) {
            \assert($cell !== null);
            if ($this->status === self::TERMINATED) {
                // Stopped earlier in this same batch of system messages.
                $cell->sendSystem(new SystemMessage(SystemMessageKind::DeathNotice, $this));
            } else {
                $this->extras()->watchers[spl_object_id($cell)] = $cell;
            }
        } elseif ($kind === SystemMessageKind::Unwatch) {
            \assert($cell !== null);
            if ($this->extras !== null) {
                unset($this->extras->watchers[spl_object_id($cell)]);
            }
        } elseif ($kind === SystemMessageKind::DeathNotice) {
            \assert($cell !== null);
            $this->deathNotice($cell);
        }
    }

    // ---- lifecycle ------------------------------------------------------------------------------

    private function start(): void
    {
        $this->status = self::RUNNING;
        if (!$this->incarnate()) {
            return;
        }
        if ($this->onSignal !== null) {
            try {
                $this->signal(new PreStart());
            } catch (\Throwable $e) {
                $this->fail(new ActorInitializationException("{$this->path} failed in PreStart: {$e->getMessage()}", 0, $e));

                return;
            }
        }
        $events = $this->system->eventStream;
        if ($events->hasSubscribers(ActorStarted::class)) {
            $events->publish(new ActorStarted($this->ref));
        }
    }

    /**
     * Creates the behavior from the Props; false (the actor having failed or stopped) when that
     * did not leave it running.
     *
     * @phpstan-impure installs the handler, state and signal handler
     */
    private function incarnate(): bool
    {
        try {
            $created = ($this->props->factory)();
            if ($created instanceof Actor) {
                $this->installActor($created);
            } else {
                $this->installBehavior($created);
            }
        } catch (\Throwable $e) {
            $this->fail($e instanceof ActorInitializationException ? $e : new ActorInitializationException(
                "{$this->path} could not be created: {$e->getMessage()}",
                0,
                $e,
            ));

            return false;
        }

        return $this->status === self::RUNNING;
    }

    private function installBehavior(Behavior $behavior): void
    {
        while ($behavior->kind === BehaviorKind::Setup) {
            \assert($behavior->handler !== null);
            $next = ($behavior->handler)($this);
            if (!$next instanceof Behavior) {
                throw new ActorInitializationException("The setup() factory of {$this->path} must return a Behavior, got " . get_debug_type($next) . '.');
            }
            $behavior = $next;
        }
        $kind = $behavior->kind;
        if ($kind === BehaviorKind::Receive || $kind === BehaviorKind::Stateful) {
            $this->handler = $behavior->handler;
            if ($kind === BehaviorKind::Stateful) {
                $this->state = $behavior->state;
            } elseif (!$this->state instanceof Stateless) {
                $this->state = Stateless::Instance;
            }
            if ($this->onSignal !== $behavior->onSignal) {
                $this->onSignal = $behavior->onSignal;
            }
        } elseif ($kind === BehaviorKind::Stopped) {
            $this->stopSelf();
        } else {
            throw new \LogicException("{$this->path} cannot become Behavior::{$kind->name}(): return it from a handler instead.");
        }
    }

    private function installActor(Actor $actor): void
    {
        // A closure, not $actor->receive(...): PHP 8.2's tracing JIT stops a trace at every call
        // of a first-class callable, which here is every message.
        $this->handler = static function (mixed $message, ActorContext $ctx) use ($actor): ?Behavior {
            return $actor->receive($message, $ctx);
        };
        $this->state = Stateless::Instance;
        $this->onSignal = static function (Signal $signal, ActorContext $ctx) use ($actor): void {
            match (true) {
                $signal instanceof PreStart => $actor->preStart($ctx),
                $signal instanceof PostStop => $actor->postStop($ctx),
                $signal instanceof PreRestart => $actor->preRestart($signal->reason, $ctx),
                $signal instanceof PostRestart => $actor->postRestart($signal->reason, $ctx),
                default => null,
            };
        };
    }

    private function signal(Signal $signal): void
    {
        if ($this->onSignal === null) {
            return;
        }
        $next = ($this->onSignal)($signal, $this);
        if ($next instanceof Behavior && $next->kind !== BehaviorKind::Same && !$signal instanceof PostStop) {
            $this->transition($next, $signal);
        }
    }

    private function fail(\Throwable $error): void
    {
        $message = $this->currentMessage instanceof TakenFromMailbox ? $this->mailbox->lastTaken() : $this->message();
        $this->system->reportFailure($this->ref, $error, $message);
        if ($this->parent === null || $this->status >= self::STOPPING) {
            return;
        }
        $this->status = self::SUSPENDED;
        $this->parent->sendSystem(new SystemMessage(SystemMessageKind::Failed, $this, $error));
    }

    private function restart(\Throwable $reason): void
    {
        if ($this->status >= self::STOPPING) {
            return;
        }
        if ($this->onSignal !== null) {
            try {
                $this->signal(new PreRestart($reason));
            } catch (\Throwable $e) {
                $this->system->reportFailure($this->ref, $e, null, 'PreRestart');
            }
        }
        if ($this->extras !== null) { // nothing to clear or unstash without them
            $this->clearTimers();
            $this->unstashAll();
        }
        if (\count($this->children) !== 0) {
            $this->status = self::RESTARTING;
            $this->extras()->restartReason = $reason;
            foreach ($this->children as $child) {
                $child->sendSystem(new SystemMessage(SystemMessageKind::Stop));
            }

            return; // finishRestart() once the last child has terminated
        }
        $this->finishRestart($reason);
    }

    private function finishRestart(\Throwable $reason): void
    {
        // (Fields written only when they change: a typed field's write is a slow call.)
        $extras = $this->extras;
        if ($extras !== null && \count($extras->behaviorStack) !== 0) {
            $extras->behaviorStack = [];
        }
        $this->handler = null;
        if ($this->onSignal !== null) {
            $this->onSignal = null;
        }
        if (!$this->state instanceof Stateless) {
            $this->state = Stateless::Instance;
        }
        $this->status = self::RUNNING;
        if (!$this->incarnate()) {
            return;
        }
        if ($this->onSignal !== null) {
            try {
                $this->signal(new PostRestart($reason));
            } catch (\Throwable $e) {
                $this->fail($e);

                return;
            }
        }
        $events = $this->system->eventStream;
        if ($events->hasSubscribers(ActorRestarted::class)) {
            $events->publish(new ActorRestarted($this->ref, $reason));
        }
    }

    private function stopSelf(): void
    {
        if ($this->status >= self::STOPPING) {
            return;
        }
        $started = $this->status !== self::NEW;
        $this->status = self::STOPPING;
        $this->clearTimers();
        if (\count($this->children) !== 0) {
            foreach ($this->children as $child) {
                $child->sendSystem(new SystemMessage(SystemMessageKind::Stop));
            }

            return; // finishStop() once the last child has terminated
        }
        $this->finishStop($started);
    }

    private function finishStop(bool $started): void
    {
        if ($started && $this->onSignal !== null) {
            try {
                $this->signal(new PostStop());
            } catch (\Throwable $e) {
                $this->system->reportFailure($this->ref, $e, null, 'PostStop');
            }
        }
        if ($this->processed > 0 && $this->system->stats->enabled) {
            $this->system->stats->retire($this->kind(), $this->processed); // while its handler tells its kind
        }
        $this->status = self::TERMINATED;
        // (Fields written only when they change: a typed field's write is a slow call.)
        $this->handler = null;
        if ($this->onSignal !== null) {
            $this->onSignal = null;
        }
        if (!$this->state instanceof Stateless) {
            $this->state = Stateless::Instance;
        }
        // Before its queue becomes dead letters: an actor subscribed to DeadLetter would
        // otherwise be sent the event of each, which is a dead letter again, without end.
        $this->system->eventStream->unsubscribe($this->ref);
        if (!$this->mailbox->isEmpty()) {
            // (Nothing queued, nothing to drain: the taken messages go when the turn ends.)
            $this->pin();
            foreach ($this->mailbox->drain() as [$message, $sender]) {
                $this->deadLetterQueued($message, $sender);
            }
        }
        $extras = $this->extras;
        if ($extras !== null) {
            $this->extras = null;
            foreach ($extras->stash as [$message, $sender]) {
                $this->deadLetterQueued($message, $sender);
            }
            foreach ($extras->roomWaiters as $waiter) {
                $waiter->tryResolve(null); // the sender retries, and its message becomes a dead letter
            }
            foreach ($extras->watchers as $watcher) {
                $watcher->sendSystem(new SystemMessage(SystemMessageKind::DeathNotice, $this));
            }
            foreach ($extras->watching as [$target]) {
                $target->sendSystem(new SystemMessage(SystemMessageKind::Unwatch, $this));
            }
            foreach ($extras->remoteWatching as [$remote]) {
                $remote->unwatchFrom($this->ref);
            }
        }
        $system = $this->system;
        if ($system->eventStream->hasSubscribers(ActorStopped::class)) {
            $system->eventStream->publish(new ActorStopped($this->ref));
        }
        if ($this->parent !== null) {
            $this->parent->sendSystem(new SystemMessage(SystemMessageKind::ChildTerminated, $this));
        } else {
            $system->rootTerminated();
        }
    }

    /**
     * Terminates this actor and everything below it now, without waiting for anyone (the
     * shutdown deadline passed).
     */
    public function forceTerminate(): int
    {
        $count = 0;
        foreach ($this->children as $child) {
            $count += $child->forceTerminate();
        }
        $this->children = [];
        $this->systemMessages = [];
        if ($this->status !== self::TERMINATED) {
            $started = $this->status !== self::NEW;
            $this->status = self::STOPPING;
            $this->clearTimers();
            $this->finishStop($started);
            ++$count;
        }

        return $count;
    }

    private function childTerminated(ActorCell $child): void
    {
        $name = $child->name();
        if (($this->children[$name] ?? null) === $child) {
            unset($this->children[$name]);
        }
        if ($this->parent === null) {
            $this->system->guardianTerminated($child);
        }
        if (\count($this->children) === 0) {
            if ($this->status === self::STOPPING) {
                $this->finishStop(true);
            } elseif ($this->status === self::RESTARTING) {
                $extras = $this->extras();
                $reason = $extras->restartReason ?? new \RuntimeException('Restart requested.');
                $extras->restartReason = null;
                $this->finishRestart($reason);
            }
        }
    }

    // ---- supervision ----------------------------------------------------------------------------

    /**
     * Decides what becomes of a child that failed ($failed: its Failed message, which carries the
     * child and the error; passed as it is, one argument to check rather than two).
     */
    private function supervise(SystemMessage $failed): void
    {
        $child = $failed->cell;
        $error = $failed->error;
        \assert($child !== null && $error !== null);
        if (($this->children[$child->name()] ?? null) !== $child || $child->status >= self::STOPPING) {
            return;
        }
        $strategy = $this->props->supervisor ?? $this->system->defaultStrategy;
        try {
            $directive = ($strategy->decider)($error); // SupervisorStrategy::decide(), without the call
        } catch (\Throwable $e) {
            $this->system->reportFailure($this->ref, $e, null, 'the supervisor decider');
            $directive = Directive::Escalate;
        }
        if ($directive === Directive::Restart) {
            $this->restartChild($failed, $strategy);
        } elseif ($directive === Directive::Resume) {
            $child->sendSystem(new SystemMessage(SystemMessageKind::Resume, null, $error));
        } elseif ($directive === Directive::Stop) {
            foreach ($this->affected($child, $strategy) as $target) {
                $target->sendSystem(new SystemMessage(SystemMessageKind::Stop));
            }
        } else {
            $this->fail($error); // Escalate
        }
    }

    private function restartChild(SystemMessage $failed, SupervisorStrategy $strategy): void
    {
        $child = $failed->cell;
        $error = $failed->error;
        \assert($child !== null && $error !== null);
        $now = $this->system->loop->now();
        $extras = $child->extras();
        if (\count($extras->restarts) !== 0 && min($extras->restarts) <= $now - $strategy->within) {
            // Some fell out of the window (only then is the list rebuilt).
            $recent = [];
            foreach ($extras->restarts as $at) {
                if ($at > $now - $strategy->within) {
                    $recent[] = $at;
                }
            }
            $extras->restarts = $recent;
        }
        $extras->restarts[] = $now;
        $restarts = \count($extras->restarts);
        if ($restarts > $strategy->maxRestarts) {
            foreach ($this->affected($child, $strategy) as $target) {
                $target->sendSystem(new SystemMessage(SystemMessageKind::Stop));
            }
            $this->fail(new RestartLimitExceededException(sprintf(
                '%s failed %d times within %.1f s, more than the %d restarts its supervisor allows; it was stopped. Last failure: %s',
                $child->path,
                $restarts,
                $strategy->within,
                $strategy->maxRestarts,
                $error->getMessage(),
            ), 0, $error));

            return;
        }
        $delay = $strategy->backoff?->delay($restarts) ?? 0.0;
        if ($delay <= 0.0 && $strategy->scope === SupervisionScope::OneForOne) {
            $child->sendSystem(new SystemMessage(SystemMessageKind::Recreate, null, $error)); // the usual case, without a list

            return;
        }
        foreach ($this->affected($child, $strategy) as $target) {
            $recreate = new SystemMessage(SystemMessageKind::Recreate, null, $error);
            if ($delay > 0.0) {
                $this->system->loop->delay($delay, static function () use ($target, $recreate): void {
                    $target->sendSystem($recreate);
                });
            } else {
                $target->sendSystem($recreate);
            }
        }
    }

    /**
     * @return list<ActorCell>
     */
    private function affected(ActorCell $child, SupervisorStrategy $strategy): array
    {
        return match ($strategy->scope) {
            SupervisionScope::OneForOne => [$child],
            SupervisionScope::AllForOne => array_values($this->children),
            SupervisionScope::RestForOne => array_values(\array_slice(
                $this->children,
                (int) array_search($child->name(), array_keys($this->children), true),
            )),
        };
    }

    // ---- death watch ----------------------------------------------------------------------------

    private function deathNotice(ActorCell $dead): void
    {
        $id = spl_object_id($dead);
        $watching = $this->extras->watching ?? [];
        if (!isset($watching[$id]) || $watching[$id][2] || $this->status >= self::STOPPING) {
            return; // not watched (any more), or already queued
        }
        $this->extras()->watching[$id][2] = true;
        $this->mailbox->append(new DeathNotice($dead), $dead->ref);
    }

    private function deliverTerminated(DeathNotice $notice, ?ActorRef $sender): void
    {
        $id = spl_object_id($notice->dead);
        if (!isset($this->extras->watching[$id])) {
            return; // unwatched after the notice was queued
        }
        $message = $this->extras->watching[$id][1] ?? new Terminated($notice->dead->ref);
        unset($this->extras->watching[$id]);
        $this->invoke($message, $sender);
    }

    // ---- overflow of bounded mailboxes ----------------------------------------------------------

    /**
     * Handles a message the mailbox did not simply accept; true when it ended up queued.
     */
    private function overflow(EnqueueResult $result, mixed $message, ?ActorRef $sender): bool
    {
        switch ($result) {
            case EnqueueResult::AcceptedDroppingOldest:
                $this->deadLetter($this->mailbox->message, $this->mailbox->sender, DeadLetterReason::MailboxFull);

                return true;
            case EnqueueResult::DroppedNewest:
                $this->deadLetter($message, $sender, DeadLetterReason::MailboxFull);

                return false;
            default:
                if ($this->mailbox->overflow === OverflowPolicy::Backpressure && \Fiber::getCurrent() !== null) {
                    $this->waitForRoom($message, $sender);

                    return false;
                }
                throw new MailboxFullException(sprintf(
                    'The mailbox of %s is full (%d messages); %s was not queued. Send it again later or enlarge the mailbox.',
                    $this->path,
                    $this->mailbox->capacity,
                    get_debug_type($message),
                ));
        }
    }

    private function waitForRoom(mixed $message, ?ActorRef $sender): void
    {
        /** @var Deferred<null> $room */
        $room = new Deferred($this->system->loop);
        $this->extras()->roomWaiters[] = $room;
        if (!$this->scheduled && $this->status !== self::SUSPENDED) {
            $this->scheduled = true;
            $this->system->scheduler->schedule($this);
        }
        $room->future()->await();
        $this->deliver($message, $sender);
    }

    private function releaseRoomWaiters(): void
    {
        $extras = $this->extras();
        $free = $this->mailbox->capacity - $this->mailbox->count();
        while ($free-- > 0 && \count($extras->roomWaiters) !== 0) {
            array_shift($extras->roomWaiters)->tryResolve(null);
        }
    }

    // ---- dead letters ---------------------------------------------------------------------------

    private function deadLetterQueued(mixed $message, ?ActorRef $sender): void
    {
        if ($message instanceof TimerFired || $message instanceof DeathNotice || $message instanceof TurnCallback) {
            return; // a timer, watch notice or turn callback of a stopped actor: nothing was lost
        }
        $this->deadLetter($message, $sender, DeadLetterReason::RecipientTerminated);
    }

    private function deadLetter(mixed $message, ?ActorRef $sender, DeadLetterReason $reason): void
    {
        if ($message instanceof Traced) {
            $message = $message->message;
        }
        $deadLetters = $this->system->deadLetters;
        if ($deadLetters->redirected($message, $sender, $this->path, $reason)) {
            return; // taken over (a worker handing this actor off to its successor forwards it)
        }
        if ($sender instanceof ReplyAddress) {
            $sender->undeliverable($reason, $this->path);
        }
        $deadLetters->publish($message, $sender, $this->path, $reason);
    }

    // ---- timers and receive timeout -------------------------------------------------------------

    private function clearTimers(): void
    {
        if ($this->extras !== null) {
            $this->extras->timers?->cancelAll();
            $this->cancelReceiveTimeout();
        }
    }

    /**
     * Makes the message in hand and its sender the cell's own (see TakenFromMailbox) before the
     * mailbox's layout changes under them (an unstash, a prepended PoisonPill, the oldest dropped,
     * the mailbox drained). Each of these also changes the mailbox's generation or the actor's
     * status, which ends the run loop's batch: the next batch marks the mailbox's message again.
     */
    private function pin(): void
    {
        if ($this->currentMessage instanceof TakenFromMailbox) {
            $this->currentSender = $this->mailbox->lastTakenSender();
            $this->currentMessage = $this->mailbox->lastTaken();
        }
    }

    /**
     * @internal
     */
    public function extras(): CellExtras
    {
        return $this->extras ??= new CellExtras();
    }

    private function receiveTimeoutDue(): void
    {
        $extras = $this->extras;
        if ($extras === null || $extras->receiveTimeout === null || $this->status >= self::STOPPING) {
            return;
        }
        [$seconds, $message] = $extras->receiveTimeout;
        $loop = $this->system->loop;
        $idle = $loop->now() - $extras->lastActivity;
        if ($idle + 1e-9 >= $seconds) {
            $this->deliver($message, null);
            $wait = $seconds;
        } else {
            $wait = $seconds - $idle;
        }
        $extras->receiveTimeout = [$seconds, $message, $loop->delay($wait, fn() => $this->receiveTimeoutDue())];
    }

    // ---- ActorContext ---------------------------------------------------------------------------

    public function self(): ActorRef
    {
        return $this->ref;
    }

    public function path(): string
    {
        return $this->path;
    }

    public function parent(): ?ActorRef
    {
        return $this->parent?->ref;
    }

    public function system(): ActorSystem
    {
        return $this->system;
    }

    public function loop(): Loop
    {
        return $this->system->loop;
    }

    public function log(): LoggerInterface
    {
        return new ContextLogger($this->system->logger, ['actor' => $this->path]);
    }

    public function sender(): ?ActorRef
    {
        return $this->currentMessage instanceof TakenFromMailbox ? $this->mailbox->lastTakenSender() : $this->currentSender;
    }

    public function message(): mixed
    {
        $message = $this->currentMessage;
        if ($message instanceof TakenFromMailbox) {
            return $this->mailbox->lastTaken();
        }

        return $message instanceof NoMessage ? null : $message;
    }

    public function reply(mixed $message): void
    {
        $sender = $this->currentMessage instanceof TakenFromMailbox ? $this->mailbox->lastTakenSender() : $this->currentSender;
        if ($sender === null) {
            $this->system->deadLetters->publish($message, $this->ref, 'the sender of ' . $this->path . "'s current message", DeadLetterReason::NoSender);

            return;
        }
        $sender->tell($message, $this->ref);
    }

    public function forward(ActorRef $to, mixed $message = null): void
    {
        if ($this->currentMessage instanceof NoMessage) {
            throw new \LogicException('forward() needs a message being handled.');
        }
        if (\func_num_args() === 1) {
            $message = $this->message();
        }
        $sender = $this->sender();
        if ($to instanceof LocalActorRef) {
            // Straight to the cell: tell() would make this actor the sender of a message without one.
            $to->cell->deliver($message, $sender);
        } else {
            $to->tell($message, $sender);
        }
    }

    public function spawn(Props|Behavior $props, ?string $name = null): ActorRef
    {
        if ($this->status >= self::STOPPING) {
            throw new ActorStoppingException("{$this->path} is stopping and cannot start children.");
        }
        if ($props instanceof Behavior) {
            $props = Props::fromBehavior($props);
        }
        if ($name === null) {
            $name = $this->system->nextAnonymousName();
        } else {
            if ($name === '' || $name[0] === '$' || strpbrk($name, "/ \t\r\n\0#?") !== false) {
                throw new InvalidActorNameException(
                    "Invalid actor name '{$name}': use a non-empty name without slashes, whitespace, '#' or '?', not starting with '$' (reserved for anonymous actors).",
                );
            }
            if (isset($this->children[$name])) {
                throw new ActorNameTakenException("An actor named '{$name}' already exists under {$this->path}; stop it first or choose another name.");
            }
        }
        $child = new self($this->system, $this, $name, $props);
        $this->children[$name] = $child;
        $child->scheduled = true;
        $this->system->scheduler->schedule($child);

        return $child->ref;
    }

    public function child(string $name): ?ActorRef
    {
        return ($this->children[$name] ?? null)?->ref;
    }

    public function children(): array
    {
        $refs = [];
        foreach ($this->children as $name => $child) {
            $refs[$name] = $child->ref;
        }

        return $refs;
    }

    public function stop(?ActorRef $ref = null): void
    {
        if ($ref === null || $ref === $this->ref) {
            $this->stopSelf();

            return;
        }
        if (!$ref instanceof LocalActorRef || ($this->children[$ref->cell->name()] ?? null) !== $ref->cell) {
            throw new \InvalidArgumentException("{$this->path} can stop only itself and its children, not {$ref->path()}; use ActorSystem::stop() or send it a PoisonPill.");
        }
        $ref->cell->sendSystem(new SystemMessage(SystemMessageKind::Stop));
    }

    public function watch(ActorRef $ref, mixed $message = null): void
    {
        if ($ref instanceof RemoteWatchable) {
            $this->extras()->remoteWatching[$ref->watchKey()] = [$ref, $message];
            $ref->watchFrom($this->ref);

            return;
        }
        if (!$ref instanceof LocalActorRef) {
            throw new \InvalidArgumentException('Only actors can be watched, not ' . get_debug_type($ref) . '.');
        }
        $target = $ref->cell;
        if ($target === $this) {
            return;
        }
        $this->extras()->watching[spl_object_id($target)] = [$target, $message, false];
        $target->sendSystem(new SystemMessage(SystemMessageKind::Watch, $this));
    }

    public function unwatch(ActorRef $ref): void
    {
        if ($ref instanceof RemoteWatchable) {
            if ($this->extras !== null && isset($this->extras->remoteWatching[$ref->watchKey()])) {
                unset($this->extras->remoteWatching[$ref->watchKey()]);
                $ref->unwatchFrom($this->ref);
            }

            return;
        }
        if (!$ref instanceof LocalActorRef) {
            return;
        }
        $target = $ref->cell;
        if ($this->extras !== null) {
            unset($this->extras->watching[spl_object_id($target)]);
        }
        $target->sendSystem(new SystemMessage(SystemMessageKind::Unwatch, $this));
    }

    public function timers(): TimerScheduler
    {
        return $this->extras()->timers ??= new TimerScheduler($this, $this->system->loop);
    }

    public function setReceiveTimeout(float $seconds, mixed $message = null): void
    {
        if ($seconds <= 0.0) {
            throw new \InvalidArgumentException("A receive timeout must be above zero seconds, got {$seconds}; use cancelReceiveTimeout() to turn it off.");
        }
        $this->cancelReceiveTimeout();
        if ($this->status >= self::STOPPING) {
            $this->log()->warning('The receive timeout was not set: the actor is stopping or has stopped.');

            return;
        }
        $loop = $this->system->loop;
        $extras = $this->extras();
        $extras->lastActivity = $loop->now();
        $extras->receiveTimeout = [$seconds, $message ?? new ReceiveTimeout(), $loop->delay($seconds, fn() => $this->receiveTimeoutDue())];
    }

    public function cancelReceiveTimeout(): void
    {
        $extras = $this->extras;
        if ($extras !== null && $extras->receiveTimeout !== null) {
            $this->system->loop->cancel($extras->receiveTimeout[2]);
            $extras->receiveTimeout = null;
        }
    }

    public function runOnTurn(\Closure $callback, mixed $message = null, ?ActorRef $sender = null): bool
    {
        if ($this->status === self::TERMINATED) {
            return false;
        }
        // Past any capacity, like a death notice: the runtime's own bookkeeping must not be dropped.
        $this->mailbox->append(new TurnCallback($callback, $message), $sender);
        if (!$this->scheduled) {
            $this->scheduled = true;
            $this->system->scheduler->schedule($this);
        }

        return true;
    }

    public function isSteady(): bool
    {
        return $this->status === self::RUNNING && \count($this->systemMessages) === 0 && $this->system->scheduler->current !== $this;
    }

    public function stash(): void
    {
        if ($this->currentMessage instanceof NoMessage) {
            throw new \LogicException('stash() needs a message being handled.');
        }
        $extras = $this->extras();
        if (\count($extras->stash) >= $this->props->stashCapacity) {
            throw new StashOverflowException(sprintf(
                'The stash of %s is full (%d messages); unstash before stashing more, or raise Props::withStashCapacity().',
                $this->path,
                $this->props->stashCapacity,
            ));
        }
        $extras->stash[] = [$this->message(), $this->sender()];
    }

    public function unstashAll(): void
    {
        $extras = $this->extras;
        if ($extras !== null && \count($extras->stash) !== 0) {
            $this->pin();
            $this->mailbox->prepend($extras->stash);
            $extras->stash = [];
        }
    }

    public function stashSize(): int
    {
        return \count($this->extras->stash ?? []);
    }

    public function holdPoisonPill(bool $hold): void
    {
        if ($hold || $this->extras !== null) {
            $this->extras()->holdPoisonPill = $hold;
        }
    }

    public function become(Behavior $behavior, bool $discardOld = true): void
    {
        if (!$discardOld) {
            $this->extras()->behaviorStack[] = [$this->handler, $this->state, $this->onSignal];
        }
        $this->installBehavior($behavior);
    }

    public function placementEpoch(): int
    {
        return $this->props->placementEpoch;
    }

    public function unbecome(): void
    {
        $previous = $this->extras === null ? null : array_pop($this->extras->behaviorStack);
        if ($previous !== null) {
            [$this->handler, $this->state, $this->onSignal] = $previous;
        }
    }
}
