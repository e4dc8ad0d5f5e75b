<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * The faults the campaign injects.
 */
enum FaultKind: string
{
    /** SIGKILL of a random worker: the master must replace it, its connections are lost */
    case KillWorker = 'kill-worker';
    /** three SIGHUPs to the master 0.3 s apart: reloads on top of reloads */
    case ReloadStorm = 'reload-storm';
    /** connections that send a request head one line per second and never finish it */
    case Slowloris = 'slowloris';
    /** connections that pipeline requests for 1 MiB answers and never read them */
    case NonReaders = 'non-readers';
    /** a handler sends 20,000 messages of 4 KiB to a slow actor that may live on the other worker */
    case Flood = 'flood';
    /** PostgreSQL shut down (fast) and started again under the pooled clients */
    case PostgresRestart = 'postgres-restart';
    /** Redis shut down and started again under the pooled clients */
    case RedisRestart = 'redis-restart';

    public function label(): string
    {
        return match ($this) {
            self::KillWorker => 'kill -9 of a worker',
            self::ReloadStorm => 'SIGHUP storm (3 reloads)',
            self::Slowloris => 'slowloris clients (20)',
            self::NonReaders => 'clients that never read (4 x 64 requests of 1 MiB)',
            self::Flood => 'flood of a slow actor (2 x 20,000 messages of 4 KiB)',
            self::PostgresRestart => 'PostgreSQL stop and start',
            self::RedisRestart => 'Redis stop and start',
        };
    }
}
