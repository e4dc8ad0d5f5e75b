<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * One operation a load client sends: a counter to increment, or a unique id to store.
 */
final readonly class Operation
{
    public function __construct(public OperationKind $kind, public string $key) {}
}
