<?php

declare(strict_types=1);

namespace Nexus\Persistence\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Persistence\DurableStateBehavior;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\TooManyEventsException;
use Nexus\Persistence\Store\StateRecord;

/**
 * One incarnation of a durable-state actor (see DurableStateBehavior).
 *
 * @internal
 */
final class DurableStateRunner extends PersistentRunner
{
    private int $revision = 0;
    private mixed $stateBefore = null;

    public function __construct(
        private readonly DurableStateBehavior $definition,
        ActorContext $ctx,
    ) {
        parent::__construct(
            $definition->persistence,
            $ctx,
            $definition->persistenceId,
            $definition->emptyState,
            $definition->signalHandler,
            $definition->backoff,
            $definition->escalate,
        );
    }

    protected function recover(): void
    {
        $this->revision = 0;
        $this->whenSettled($this->persistence->store->loadState($this->persistenceId), function (?\Throwable $error, mixed $record): void {
            if ($error !== null) {
                $this->recoveryFailed($error);

                return;
            }
            if ($record instanceof StateRecord) {
                $payload = $record->state;
                try {
                    $this->state = $this->persistence->types->decode($payload->name, $payload->version, $payload->format, $payload->data);
                } catch (\Throwable $e) {
                    $this->recoveryFailed($e);

                    return;
                }
                $this->revision = $record->revision;
            }
            $this->recovered($this->revision);
        });
    }

    protected function callCommandHandler(mixed $command): mixed
    {
        return ($this->definition->commandHandler)($this->state, $command, $this->ctx);
    }

    protected function persist(Effect $effect, mixed $command, ?ActorRef $sender): void
    {
        if (\count($effect->values) !== 1) {
            $this->fail($command, $sender, new TooManyEventsException(\sprintf(
                'A durable-state actor persists exactly one value, its new state; the handler of %s gave %d.',
                $this->persistenceId,
                \count($effect->values),
            )));

            return;
        }
        $state = $effect->values[0];
        try {
            $payload = $this->persistence->types->encode($state);
        } catch (PersistenceException $e) {
            $this->fail($command, $sender, $e);

            return;
        }
        $refused = $this->persistence->groupCommit->writeState(new StateRecord($this->persistenceId, $this->revision + 1, $payload), $this);
        if ($refused !== null) {
            $this->fail($command, $sender, $refused);

            return;
        }
        $this->stateBefore = $this->state;
        $this->state = $state;
        $this->writing($effect, $command, $sender);
    }

    protected function committed(): void
    {
        ++$this->revision;
        $this->stateBefore = null;
    }

    protected function rolledBack(): void
    {
        $this->state = $this->stateBefore;
        $this->stateBefore = null;
    }
}
