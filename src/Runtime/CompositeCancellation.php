<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Internal\CancellationState;

/**
 * Requested as soon as any of its cancellations is, with that one's exception: a caller's own
 * cancellation combined with a default timeout, say.
 */
final class CompositeCancellation implements Cancellation
{
    private readonly CancellationState $state;
    /** @var list<array{Cancellation, int}> */
    private array $subscriptions = [];

    public function __construct(Cancellation ...$cancellations)
    {
        $state = $this->state = new CancellationState(static function (\Throwable $e): void {
            throw $e;
        });
        foreach ($cancellations as $cancellation) {
            $this->subscriptions[] = [$cancellation, $cancellation->subscribe(static function (CancelledException $e) use ($state): void {
                $state->cancel($e);
            })];
        }
    }

    public function __destruct()
    {
        foreach ($this->subscriptions as [$cancellation, $id]) {
            $cancellation->unsubscribe($id);
        }
    }

    public function subscribe(\Closure $callback): int
    {
        return $this->state->subscribe($callback);
    }

    public function unsubscribe(int $id): void
    {
        $this->state->unsubscribe($id);
    }

    public function isRequested(): bool
    {
        return $this->state->isRequested();
    }

    public function throwIfRequested(): void
    {
        $this->state->throwIfRequested();
    }
}
