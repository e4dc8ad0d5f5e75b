<?php

declare(strict_types=1);

namespace Nexus\Postgres;

/**
 * One NOTIFY received on a channel this connection listens to. $pid is the server process that
 * sent it.
 */
final class PgNotification
{
    public function __construct(
        public readonly string $channel,
        public readonly string $payload,
        public readonly int $pid,
    ) {}
}
