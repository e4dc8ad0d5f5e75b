<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * A unit of work the scheduler runs from its run queue (an actor with messages, for example).
 */
interface Runnable
{
    public function run(): void;
}
