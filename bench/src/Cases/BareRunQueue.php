<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

/**
 * The run queue of the baseline loop: the actors that have messages, in the order they got them.
 */
final class BareRunQueue
{
    /** @var list<BareActor> */
    public array $actors = [];
}
