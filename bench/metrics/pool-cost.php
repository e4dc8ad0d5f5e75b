<?php

declare(strict_types=1);

/*
 * The cost of the pool and persistence metrics on their hot paths, for callgrind (instruction
 * counts do not depend on the machine's load): run it for N and 2N operations and divide the
 * difference by N.
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null php -n -d extension=... \
 *       bench/metrics/pool-cost.php pg HOST PORT N      # N statements through PgPool::query()
 *   ... bench/metrics/pool-cost.php redis HOST PORT N   # N commands through RedisPool::command()
 *   ... bench/metrics/pool-cost.php persist N           # N persisted events (in-memory store)
 *   ... bench/metrics/pool-cost.php http-client URL N   # N GET requests through one HttpClient, one at a time
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\HttpClient\HttpClient;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgPool;
use Nexus\Redis\RedisConfig;
use Nexus\Redis\RedisPool;
use Nexus\Runtime\Loop;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

final readonly class CostBenchAdded
{
    public function __construct(public int $amount = 1) {}
}

$mode = $argv[1] ?? '';
switch ($mode) {
    case 'pg':
        $pool = new PgPool(new Loop(), new PgConfig(host: $argv[2], port: (int) $argv[3], database: 'nexus_test', user: 'postgres'), 1);
        for ($i = 0, $n = (int) $argv[4]; $i < $n; ++$i) {
            $pool->query('SELECT 1');
        }
        $pool->close();
        break;
    case 'redis':
        $pool = new RedisPool(new Loop(), new RedisConfig(host: $argv[2], port: (int) $argv[3]), 1);
        for ($i = 0, $n = (int) $argv[4]; $i < $n; ++$i) {
            $pool->command('PING');
        }
        $pool->close();
        break;
    case 'persist':
        $system = new ActorSystem('cost');
        $persistence = Persistence::inMemory($system, (new TypeRegistry())->register(CostBenchAdded::class, 'cost.added'));
        $counter = $system->spawn($persistence->eventSourced(
            'cost|counter',
            0,
            static fn(int $value, mixed $command, ActorContext $ctx): Effect => Effect::persist(new CostBenchAdded())->thenReply(static fn(int $value): int => $value),
            static fn(int $value, CostBenchAdded $event): int => $value + $event->amount,
        )->behavior());
        for ($i = 0, $n = (int) $argv[2]; $i < $n; ++$i) {
            $counter->ask('inc', 5.0)->await();
        }
        break;
    case 'http-client':
        $client = new HttpClient(new Loop());
        for ($i = 0, $n = (int) $argv[3]; $i < $n; ++$i) {
            $client->get($argv[2])->await();
        }
        $client->close();
        break;
    default:
        fwrite(STDERR, "Usage: pool-cost.php pg HOST PORT N | redis HOST PORT N | persist N | http-client URL N\n");
        exit(2);
}
