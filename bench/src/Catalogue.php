<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * Reference figures (seeds/nexus-performance.txt, the Nexus Fiber column, Apple M4 Max; and
 * seeds/airssys-runtime-performance-reference.txt for the cases only AirsSys measures) and the
 * targets of the benchmark issue.
 */
final class Catalogue
{
    private const NEXUS = 'Nexus Fiber';
    private const AIRSSYS = 'AirsSys';

    /**
     * @return array<string, Expectation> by case name
     */
    public static function expectations(): array
    {
        $list = [
            new Expectation(Suite::BASELINE, 'msgs/s', 8e6, 'design notes, end-to-end'),
            new Expectation('actor.throughput.single', 'msgs/s', 1.16e6, self::NEXUS, Target::atLeast(3.0e6, 0.35)),
            new Expectation('actor.throughput.burst', 'msgs/s', 1.29e6, self::NEXUS, Target::atLeast(3.0e6)),
            new Expectation('actor.throughput.stateful', 'msgs/s', 1.06e6, self::NEXUS, Target::atLeast(2.5e6)),
            new Expectation('actor.throughput.fanout', 'msgs/s', 1.06e6, self::NEXUS, Target::atLeast(2.5e6)),
            new Expectation('actor.throughput.multidispatch', 'msgs/s', 998e3, self::NEXUS, Target::atLeast(2.0e6)),
            new Expectation('actor.tell', 'tells/s', 5.14e6, self::NEXUS, Target::atLeast(8.0e6)),
            new Expectation('actor.spawn', 'actors/s', 453e3, self::NEXUS, Target::atLeast(1.0e6), 'AirsSys 1.6M/s'),
            new Expectation('actor.spawn.batch10', 'actors/s', 1.47e6, self::AIRSSYS),
            new Expectation('actor.kill', 'kills/s', 165e3, self::NEXUS, Target::atLeast(500e3)),
            new Expectation('actor.spawn_kill', 'cycles/s', 151e3, self::NEXUS, Target::atLeast(400e3)),
            new Expectation('actor.pingpong', 'us', 2.5, self::NEXUS, Target::atMost(1.0)),
            new Expectation('actor.ask_pingpong', 'us', 2.5, self::NEXUS, Target::atMost(2.0), 'AirsSys 0.74 µs'),
            new Expectation('actor.memory_per_actor', 'B', 3884, self::NEXUS, Target::atMost(800)),
            new Expectation('broker.publish', 'deliveries/s', 2.5e6, self::AIRSSYS . ' broadcast, est.', Target::atLeast(2.0e6)),
            new Expectation('mailbox.ops', 'pairs/s', 5.5e6, self::AIRSSYS, Target::atLeast(10.0e6)),
            new Expectation('supervisor.child_spawn', 'children/s', 779e3, self::AIRSSYS),
            new Expectation('supervisor.restart', 'restarts/s', 556e3, self::AIRSSYS . ', est.', Target::atLeast(300e3)),
            new Expectation('supervisor.tree3', 'us', 3.01, self::AIRSSYS),
        ];
        $byCase = [];
        foreach ($list as $expectation) {
            $byCase[$expectation->case] = $expectation;
        }

        return $byCase;
    }
}
