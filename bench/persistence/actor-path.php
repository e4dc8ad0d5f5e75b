<?php

declare(strict_types=1);

/*
 * The actor path of a persisted event alone, for callgrind: ACTORS event-sourced counters on the
 * in-memory store (or STORE, sqlite:/path), each with one command in flight, until EVENTS replies
 * (the concurrent case of bench/persistence without its baseline). Instructions per event are the
 * difference between two runs (30,000 minus 10,000 events), so that start-up drops out:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p php -d opcache.enable_cli=1 \
 *     -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/persistence/actor-path.php 1000 30000 [STORE [shared]]
 *
 * Prints events, seconds and CPU µs per event (getrusage) as JSON.
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Signal\Signal;
use Nexus\Bench\CpuTime;
use Nexus\Bench\Persistence\Incremented;
use Nexus\Bench\Persistence\ReplyCounter;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\PersistenceSettings;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Runtime\Deferred;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$actors = (int) ($argv[1] ?? 1000);
$events = (int) ($argv[2] ?? 30000);
$storeUrl = $argv[3] ?? 'memory';
// 'shared': the command handler returns one Effect built once (as the demo counter does), instead
// of building Effect::persist(new Incremented())->thenReply(fn) per command.
$shared = ($argv[4] ?? '') === 'shared';
$effect = Effect::persist(new Incremented())->thenReply(static fn(int $count): int => $count);

$system = new ActorSystem('actor-path', new MemoryLogger());
$system->loop->collectCyclesInBatches();
$store = str_starts_with($storeUrl, 'sqlite:') ? new SqliteStore($system->loop, substr($storeUrl, 7)) : new InMemoryStore($system->loop);
$types = (new TypeRegistry())->register(Incremented::class, 'bench.incremented');
$persistence = new Persistence($system, $store, $types, new PersistenceSettings(stashCapacity: 10_000, maxPendingWrites: 100_000));

$recovered = 0;
/** @var Deferred<null> $ready */
$ready = new Deferred($system->loop);
$refs = [];
for ($i = 0; $i < $actors; ++$i) {
    $refs[] = $system->spawn($persistence->eventSourced(
        "p-{$i}",
        0,
        $shared
            ? static fn(int $count, mixed $command, ActorContext $ctx): Effect => $effect
            : static fn(int $count, mixed $command, ActorContext $ctx): Effect => Effect::persist(new Incremented())->thenReply(static fn(int $count): int => $count),
        static fn(int $count, object $event): int => $count + 1,
    )->onSignal(static function (Signal $signal) use (&$recovered, $actors, $ready): void {
        if ($signal instanceof RecoveryCompleted && ++$recovered === $actors) {
            $ready->tryResolve(null);
        }
    })->behavior());
}
$ready->future()->await(120.0);

/** @var Deferred<null> $done */
$done = new Deferred($system->loop);
$driver = new ReplyCounter($events, $done, 'inc');
$cpu = CpuTime::user();
$start = hrtime(true);
foreach ($refs as $ref) {
    $ref->tell('inc', $driver);
}
$done->future()->await(300.0);
$seconds = (hrtime(true) - $start) / 1e9;
$cpu = CpuTime::user() - $cpu;
if ($driver->failures > 0) {
    throw new RuntimeException("{$driver->failures} commands failed.");
}
echo json_encode(['events' => $driver->replies, 'seconds' => round($seconds, 3), 'cpu_us_per_event' => round($cpu / $driver->replies * 1e6, 2), 'transactions' => $persistence->groupCommit->transactions()]), "\n";
$system->shutdown()->await(30.0);
