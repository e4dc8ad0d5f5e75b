<?php

declare(strict_types=1);

namespace Nexus\Bench;

use Nexus\Bench\Cases\AskPingPong;
use Nexus\Bench\Cases\BaselineLoop;
use Nexus\Bench\Cases\BrokerPublish;
use Nexus\Bench\Cases\Kill;
use Nexus\Bench\Cases\MailboxOps;
use Nexus\Bench\Cases\MemoryPerActor;
use Nexus\Bench\Cases\PingPong;
use Nexus\Bench\Cases\Spawn;
use Nexus\Bench\Cases\SpawnBatch10;
use Nexus\Bench\Cases\SpawnKill;
use Nexus\Bench\Cases\SupervisorChildSpawn;
use Nexus\Bench\Cases\SupervisorRestart;
use Nexus\Bench\Cases\SupervisorTree3;
use Nexus\Bench\Cases\TellOnly;
use Nexus\Bench\Cases\ThroughputBurst;
use Nexus\Bench\Cases\ThroughputFanout;
use Nexus\Bench\Cases\ThroughputMultiDispatch;
use Nexus\Bench\Cases\ThroughputSingle;
use Nexus\Bench\Cases\ThroughputStateful;

/**
 * Every actor benchmark, in the order they run: the baseline first (the runner also repeats it
 * last), and the memory case at the end, as its 100K actors leave the heap in a state that slows
 * allocation-heavy cases run after it.
 */
final class Suite
{
    public const BASELINE = 'baseline.loop';

    /**
     * @return list<BenchCase>
     */
    public static function cases(): array
    {
        return [
            new BaselineLoop(),
            new ThroughputSingle(),
            new ThroughputBurst(),
            new ThroughputStateful(),
            new ThroughputFanout(),
            new ThroughputMultiDispatch(),
            new TellOnly(),
            new Spawn(),
            new SpawnBatch10(),
            new Kill(),
            new SpawnKill(),
            new PingPong(),
            new AskPingPong(),
            new BrokerPublish(),
            new MailboxOps(),
            new SupervisorChildSpawn(),
            new SupervisorRestart(),
            new SupervisorTree3(),
            new MemoryPerActor(),
        ];
    }
}
