<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

/**
 * The whole of an actor in the baseline loop: an array mailbox, an idle flag and a closure.
 */
final class BareActor
{
    /** @var list<int> */
    public array $mailbox = [];
    public bool $scheduled = false;

    /**
     * @param \Closure(int): void $handler
     */
    public function __construct(public readonly \Closure $handler) {}
}
