<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Runnable;

/**
 * One request on its way through the server: run by the scheduler (so the handler gets a fiber
 * only if it waits), then kept in its connection's queue until its response is written in order.
 *
 * @internal
 */
final class RequestTask implements Runnable
{
    public ?Response $response = null;
    /** The response is streamed by its producer, in this task's fiber. */
    public bool $streamed = false;
    /** @var Deferred<null>|null settled when a streamed response may start (earlier ones are sent) */
    public ?Deferred $turn = null;

    public function __construct(
        public readonly ServerConnection $connection,
        public readonly ?Request $request,
        public readonly bool $keepAlive,
        public readonly bool $head,
        public readonly string $protocolVersion,
    ) {}

    public function run(): void
    {
        $this->connection->run($this);
    }
}
