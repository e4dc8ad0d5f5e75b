<?php

declare(strict_types=1);

namespace Nexus\Worker;

/**
 * What each worker process runs, from just after fork() until it exits. It must call
 * WorkerContext::ready() once it serves, stop gracefully on SIGTERM, and return the exit code.
 */
interface WorkerMain
{
    public function run(WorkerContext $context): int;
}
