<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Backoff;
use Nexus\Persistence\Internal\DurableStateRunner;

/**
 * A durable-state actor: a persistence id, an empty state and a command handler
 * (state, command, ctx) -> Effect. Effect::persist($newState) stores the state itself, as an
 * upsert conditional on its revision (which grows by one with each write); the other effects are
 * those of event-sourced actors, and so are recovery (one read), stashing, signals, failures and
 * backoff (see EventSourcedBehavior). Another writer that changed the state first makes the write
 * fail with ConcurrentWriteException, and the actor stops.
 */
final class DurableStateBehavior
{
    /**
     * @param \Closure $commandHandler fn(State $state, mixed $command, ActorContext $ctx): Effect
     * @param (\Closure(Signal, ActorContext): void)|null $signalHandler
     *
     * @internal use Persistence::durableState()
     */
    public function __construct(
        public readonly Persistence $persistence,
        public readonly string $persistenceId,
        public readonly mixed $emptyState,
        public readonly \Closure $commandHandler,
        public readonly ?\Closure $signalHandler = null,
        public readonly ?Backoff $backoff = null,
        public readonly bool $escalate = false,
    ) {}

    /**
     * @param \Closure(Signal, ActorContext): void $handler
     */
    public function onSignal(\Closure $handler): self
    {
        return new self($this->persistence, $this->persistenceId, $this->emptyState, $this->commandHandler, $handler, $this->backoff, $this->escalate);
    }

    /**
     * See EventSourcedBehavior::withBackoff().
     */
    public function withBackoff(?Backoff $backoff): self
    {
        return new self($this->persistence, $this->persistenceId, $this->emptyState, $this->commandHandler, $this->signalHandler, $backoff, $backoff === null);
    }

    public function behavior(): Behavior
    {
        $definition = $this;

        return Behavior::setup(static function (ActorContext $ctx) use ($definition): Behavior {
            $runner = new DurableStateRunner($definition, $ctx);
            $runner->start();

            return Behavior::receive($runner->onMessage(...))->onSignal($runner->onSignal(...));
        });
    }

    public function props(): Props
    {
        return Props::fromBehavior($this->behavior())->withStashCapacity($this->persistence->settings->stashCapacity);
    }
}
