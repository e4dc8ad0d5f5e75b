<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

/**
 * A starting node was stopped (SIGTERM, SIGINT) while it waited for etcd: it never joined and
 * served nothing, so there is nothing to hand off; the process ends. $signal names the signal.
 */
final class JoinInterruptedException extends ClusterException
{
    public function __construct(public readonly string $signal, string $message)
    {
        parent::__construct($message);
    }
}
