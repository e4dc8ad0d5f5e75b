<?php

declare(strict_types=1);

namespace Nexus\Persistence\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\StashOverflowException;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\PreRestart;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Backoff;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\Effect;
use Nexus\Persistence\EffectKind;
use Nexus\Persistence\Exception\ActorStoppedException;
use Nexus\Persistence\Exception\CommandHandlerFailedException;
use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\RecoveryFailedException;
use Nexus\Persistence\Exception\StashFullException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\PersistenceStats;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Signal\RecoveryFailed;
use Nexus\Runtime\Future;

/**
 * What event-sourced and durable-state actors share: the modes of a persistent actor, stashing
 * while it recovers or writes, failing commands to their senders, side effects, and the restart
 * with backoff after a store failure. One runner per incarnation of the actor; a restart by the
 * supervisor makes a new one and the old one ignores what still arrives for it.
 *
 * Everything here runs on the actor's turn: results from the store come back through
 * ActorContext::runOnTurn().
 *
 * @internal
 */
abstract class PersistentRunner implements WriteListener
{
    protected const RECOVERING = 0;
    protected const RUNNING = 1;
    protected const PERSISTING = 2;
    /** Waiting to recover again after a failure: commands fail at once. */
    protected const BACKING_OFF = 3;
    /** Fenced by another writer: commands fail, then the actor stops. */
    protected const FENCED = 4;
    /** Stopped or replaced by a restart: nothing more happens. */
    protected const DEAD = 5;

    protected int $mode = self::RECOVERING;
    protected mixed $state;
    /** Why commands fail while backing off or fenced. */
    protected ?PersistenceException $failure = null;
    private int $attempt = 0;
    private ?int $timer = null;

    // The write in flight.
    protected ?Effect $pendingEffect = null;
    protected mixed $pendingCommand = null;
    protected ?ActorRef $pendingSender = null;
    private ?PersistenceException $writeResult = null;
    private readonly \Closure $afterWrite;

    /**
     * @param (\Closure(Signal, ActorContext): void)|null $signalHandler
     */
    public function __construct(
        protected readonly Persistence $persistence,
        protected readonly ActorContext $ctx,
        protected readonly string $persistenceId,
        protected readonly mixed $emptyState,
        private readonly ?\Closure $signalHandler,
        private readonly ?Backoff $backoff,
        private readonly bool $escalate,
    ) {
        $this->state = $emptyState;
        $this->afterWrite = $this->afterWrite(...);
    }

    /**
     * Begins recovery (again after a backoff); commands are stashed until it completes.
     */
    public function start(): void
    {
        $this->enter(self::RECOVERING);
        $this->state = $this->emptyState;
        $this->persistence->groupCommit->afterWritesOf($this->persistenceId, function (): void {
            $this->onTurn(function (): void {
                $this->recover();
            });
        });
    }

    public function onMessage(mixed $message, ActorContext $ctx): ?Behavior
    {
        switch ($this->mode) {
            case self::RUNNING:
                $this->handle($message, $ctx->sender());
                break;
            case self::RECOVERING:
            case self::PERSISTING:
                $this->stash($message, $ctx->sender());
                break;
            default:
                $this->fail($message, $ctx->sender(), $this->failure ?? new ActorStoppedException("{$this->persistenceId} has stopped."));
        }

        return null;
    }

    public function onSignal(Signal $signal, ActorContext $ctx): ?Behavior
    {
        if ($signal instanceof PostStop || $signal instanceof PreRestart) {
            $this->die($signal instanceof PostStop ? 'stopped' : 'is restarting');
        }
        $this->signal($signal);

        return null;
    }

    public function writeDone(?PersistenceException $error): void
    {
        if ($error === null && $this->mode === self::PERSISTING && $this->ctx->stashSize() === 0 && self::repliesOnly($this->pendingEffect) && $this->ctx->isSteady()) {
            $this->committedNow();

            return;
        }
        $this->writeResult = $error;
        $this->ctx->runOnTurn($this->afterWrite, $this->pendingCommand, $this->pendingSender);
    }

    /**
     * Reads the state back from the store; ends in recovered() or recoveryFailed().
     */
    abstract protected function recover(): void;

    /**
     * Starts the write of a Persist effect (mode PERSISTING), or fails the command.
     */
    abstract protected function persist(Effect $effect, mixed $command, ?ActorRef $sender): void;

    /**
     * The write committed: advance the sequence number or revision.
     */
    abstract protected function committed(): void;

    abstract protected function callCommandHandler(mixed $command): mixed;

    protected function recovered(int $sequenceNr): void
    {
        if ($this->mode === self::DEAD) {
            return;
        }
        ++PersistenceStats::process()->recoveries;
        $this->enter(self::RUNNING);
        $this->signal(new RecoveryCompleted($this->state, $sequenceNr));
        $this->ctx->unstashAll();
    }

    protected function recoveryFailed(\Throwable $error): void
    {
        if ($this->mode === self::DEAD) {
            return;
        }
        ++PersistenceStats::process()->failedRecoveries;
        $this->ctx->log()->error('Recovery of {id} failed: {error}', ['id' => $this->persistenceId, 'error' => $error->getMessage(), 'exception' => $error]);
        $this->signal(new RecoveryFailed($error));
        $reason = new RecoveryFailedException("{$this->persistenceId} could not recover its state: {$error->getMessage()}", 0, $error);
        $this->restartAfterFailure($reason, $error);
    }

    /**
     * Runs $then($error, $value) on the actor's turn once $future settles. A blocking store (SQLite)
     * has answered already, on this very turn: then $then runs at once, unless $yield asks for a
     * turn of its own (between pages of a long recovery, so that other actors and I/O get theirs).
     * Called on the actor's turn only.
     *
     * @param Future<mixed>                      $future
     * @param \Closure(?\Throwable, mixed): void $then
     */
    protected function whenSettled(Future $future, \Closure $then, bool $yield = false): void
    {
        if (!$yield && $future->isSettled()) {
            $future->onSettle($then);

            return;
        }
        $future->onSettle(function (?\Throwable $error, mixed $value) use ($then): void {
            $this->onTurn(static function () use ($then, $error, $value): void {
                $then($error, $value);
            });
        });
    }

    /**
     * Runs $then on the actor's turn unless this incarnation has ended by then.
     *
     * @param \Closure(): void $then
     */
    protected function onTurn(\Closure $then): void
    {
        $this->ctx->runOnTurn(function () use ($then): void {
            if ($this->mode !== self::DEAD) {
                $then();
            }
        });
    }

    /**
     * Tells the sender of a command that it failed (a CommandFailed), or publishes the command
     * as a dead letter when it had no sender.
     */
    protected function fail(mixed $command, ?ActorRef $sender, PersistenceException $error): void
    {
        if ($sender !== null) {
            $sender->tell(CommandFailed::of($error, $this->persistenceId), $this->ctx->self());

            return;
        }
        $this->ctx->log()->warning('A command to {id} failed and had no sender to tell: {error}', ['id' => $this->persistenceId, 'error' => $error->getMessage()]);
        $this->ctx->system()->deadLetters->publish($command, null, $this->ctx->path(), DeadLetterReason::Refused);
    }

    /**
     * Begins a write: the effect and its command wait for writeDone().
     */
    protected function writing(Effect $effect, mixed $command, ?ActorRef $sender): void
    {
        $this->pendingEffect = $effect;
        $this->pendingCommand = $command;
        $this->pendingSender = $sender;
        $this->enter(self::PERSISTING);
    }

    /**
     * What a handler of the application threw: the command fails to its sender, and the caller
     * rethrows so that the actor fails (its supervisor decides).
     */
    protected function handlerFailed(\Throwable $error, mixed $command, ?ActorRef $sender): void
    {
        $this->fail($command, $sender, new CommandHandlerFailedException(\sprintf('The handler of %s failed on %s: %s', $this->persistenceId, get_debug_type($command), $error->getMessage()), 0, $error));
    }

    private function handle(mixed $command, ?ActorRef $sender): void
    {
        try {
            $effect = $this->callCommandHandler($command);
        } catch (\Throwable $e) {
            $this->handlerFailed($e, $command, $sender);

            throw $e;
        }
        if (!$effect instanceof Effect) {
            $error = new \LogicException(\sprintf('The command handler of %s must return an Effect, got %s.', $this->persistenceId, get_debug_type($effect)));
            $this->fail($command, $sender, new CommandHandlerFailedException($error->getMessage(), 0, $error));

            throw $error;
        }
        switch ($effect->kind) {
            case EffectKind::Persist:
                $this->persist($effect, $command, $sender);

                return;
            case EffectKind::Unhandled:
                $this->ctx->system()->deadLetters->publish($command, $sender, $this->ctx->path(), DeadLetterReason::Unhandled);
                break;
            case EffectKind::Stash:
                $this->stash($command, $sender);
                break;
            case EffectKind::Stop:
                $this->ctx->stop();
                break;
            case EffectKind::None:
                break;
        }
        $this->sideEffects($effect);
    }

    /**
     * Whether the effect's side effects are replies alone (thenReply(), the common case): then
     * its commit needs no turn of the actor (see committedNow()).
     */
    private static function repliesOnly(?Effect $effect): bool
    {
        if ($effect === null) {
            return false;
        }
        foreach ($effect->sideEffects as $sideEffect) {
            if ($sideEffect[0] !== Effect::REPLY) {
                return false;
            }
        }

        return true;
    }

    /**
     * The write committed, nothing is stashed, and the effect only replies: the actor goes on
     * at once, without a second pass through its mailbox. What the turn would have done happens
     * here in the same order (running again, the sequence number or revision, snapshots, the
     * replies, each to the command's sender as ActorContext::reply() would have sent it); no
     * application code but the reply closures runs, and none of it needs the turn. Commands
     * that arrived meanwhile are still in the mailbox (not stashed), so they are handled next,
     * in order. A reply closure that throws fails the actor on its next turn, as it would have.
     */
    private function committedNow(): void
    {
        $effect = $this->pendingEffect;
        \assert($effect !== null);
        $sender = $this->pendingSender;
        $this->pendingEffect = $this->pendingCommand = $this->pendingSender = null;
        $this->attempt = 0;
        $this->enter(self::RUNNING);
        $this->committed();
        foreach ($effect->sideEffects as [, $reply]) {
            try {
                $message = $reply instanceof \Closure ? $reply($this->state) : $reply;
            } catch (\Throwable $e) {
                $this->ctx->runOnTurn(static function () use ($e): never {
                    throw $e;
                });

                return;
            }
            if ($sender !== null) {
                $sender->tell($message, $this->ctx->self());
            } else {
                $this->ctx->reply($message); // no sender: a dead letter, as on the turn
            }
        }
    }

    private function afterWrite(): void
    {
        if ($this->mode !== self::PERSISTING) {
            return; // this incarnation ended while the write was in flight
        }
        $error = $this->writeResult;
        $effect = $this->pendingEffect;
        \assert($effect !== null);
        $command = $this->pendingCommand;
        $sender = $this->pendingSender;
        $this->writeResult = $this->pendingEffect = $this->pendingCommand = $this->pendingSender = null;
        if ($error === null) {
            $this->attempt = 0;
            $this->enter(self::RUNNING);
            $this->committed();
            $this->sideEffects($effect);
            $this->ctx->unstashAll();

            return;
        }
        $this->fail($command, $sender, $error);
        if ($error instanceof ConcurrentWriteException) {
            $this->fenced($error);

            return;
        }
        if (!$error instanceof StoreUnavailableException) {
            // Refused for this command alone (a payload the store cannot keep): the actor goes on
            // from its state before the command.
            $this->enter(self::RUNNING);
            $this->rolledBack();
            $this->ctx->unstashAll();

            return;
        }
        $this->ctx->system()->reportFailure($this->ctx->self(), $error, $command, "persisting to {$this->persistenceId}");
        $this->restartAfterFailure($error, $error);
    }

    /**
     * The write of the pending effect was refused alone: undo its effect on the state.
     */
    abstract protected function rolledBack(): void;

    private function fenced(ConcurrentWriteException $error): void
    {
        $this->ctx->log()->warning('{id} stops: {error}', ['id' => $this->persistenceId, 'error' => $error->getMessage()]);
        $this->enter(self::FENCED);
        $this->failure = $error;
        // The stashed commands and those already queued fail with the reason; then it stops.
        $this->ctx->unstashAll();
        $this->ctx->runOnTurn(static function (ActorContext $ctx): void {
            $ctx->stop();
        });
    }

    private function restartAfterFailure(PersistenceException $reason, \Throwable $cause): void
    {
        if ($this->escalate) {
            $this->enter(self::DEAD);

            throw $cause instanceof PersistenceException ? $cause : $reason;
        }
        $this->enter(self::BACKING_OFF);
        $this->failure = $reason;
        $this->state = $this->emptyState;
        $this->ctx->unstashAll();
        $backoff = $this->backoff ?? $this->persistence->settings->backoff;
        $delay = $backoff->delay(++$this->attempt);
        $this->ctx->log()->info('{id} recovers again in {delay} s.', ['id' => $this->persistenceId, 'delay' => round($delay, 3)]);
        $this->timer = $this->ctx->loop()->delay($delay, function (): void {
            $this->timer = null;
            $this->onTurn(function (): void {
                $this->failure = null;
                $this->start();
            });
        });
    }

    /**
     * Switches mode. While it recovers or a write is in flight, a PoisonPill waits in the stash
     * behind the commands that came before it, so that a graceful stop (a reload's hand-off)
     * lets the write finish and answers those commands first.
     */
    private function enter(int $mode): void
    {
        $this->mode = $mode;
        $this->ctx->holdPoisonPill($mode === self::RECOVERING || $mode === self::PERSISTING);
    }

    private function stash(mixed $command, ?ActorRef $sender): void
    {
        if ($this->ctx->stashSize() >= $this->persistence->settings->stashCapacity) {
            $this->stashFull($command, $sender);

            return;
        }
        try {
            $this->ctx->stash();
        } catch (StashOverflowException) {
            $this->stashFull($command, $sender);
        }
    }

    private function stashFull(mixed $command, ?ActorRef $sender): void
    {
        $this->fail($command, $sender, new StashFullException(\sprintf(
            '%s is %s and its stash is full (%d commands); this command was not handled. Retry later.',
            $this->persistenceId,
            $this->mode === self::RECOVERING ? 'recovering' : 'waiting for a write',
            $this->ctx->stashSize(),
        )));
    }

    private function sideEffects(Effect $effect): void
    {
        foreach ($effect->sideEffects as [$kind, $action]) {
            switch ($kind) {
                case Effect::RUN:
                    \assert($action instanceof \Closure);
                    $action($this->state, $this->ctx);
                    break;
                case Effect::REPLY:
                    $this->ctx->reply($action instanceof \Closure ? $action($this->state) : $action);
                    break;
                case Effect::STOP:
                    $this->ctx->stop();
                    break;
                case Effect::UNSTASH_ALL:
                    $this->ctx->unstashAll();
                    break;
            }
        }
    }

    private function die(string $why): void
    {
        if ($this->timer !== null) {
            $this->ctx->loop()->cancel($this->timer);
            $this->timer = null;
        }
        if ($this->mode === self::PERSISTING) {
            $this->fail($this->pendingCommand, $this->pendingSender, new ActorStoppedException(
                "{$this->persistenceId} {$why} while its write was in flight: the events may or may not be stored; read them back before retrying.",
            ));
            $this->pendingEffect = $this->pendingCommand = $this->pendingSender = null;
        }
        $this->enter(self::DEAD);
    }

    private function signal(Signal $signal): void
    {
        if ($this->signalHandler !== null) {
            ($this->signalHandler)($signal, $this->ctx);
        }
    }
}
