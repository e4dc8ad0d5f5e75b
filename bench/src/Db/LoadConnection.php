<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Io\Connection;

/**
 * @internal one keep-alive connection of the LoadGenerator and the request it carries
 */
final class LoadConnection
{
    public ?Connection $connection = null;
    public readonly HttpResponseReader $reader;
    public float $startedAt = 0.0;
    public bool $measured = false;
    /** A request was sent (or is waiting for the connect) and its response has not come. */
    public bool $busy = true;

    public function __construct(public readonly int $id)
    {
        $this->reader = new HttpResponseReader();
    }
}
