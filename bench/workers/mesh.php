<?php

declare(strict_types=1);

/*
 * The mesh micro cases: what a message crossing between two workers costs, in one process (both
 * workers on one loop, over a real Unix socket), as CPU time (getrusage: a loaded machine
 * changes it little) per message, beside the same messages to local actors.
 *   php bench/workers/mesh.php [--messages=N] [--repeats=N]
 * Run it with the tracing JIT (make bench-mesh). Cases:
 *   ints / strings / orders   tells from one actor to a sink (orders: to 16 shards in turn, as in
 *                             the world benchmark), a burst of 1,000 per turn; "mesh" = crossing
 *                             minus local
 *   ask                       ask round trips one after the other
 *   stages                    one frame of 1,000 orders: encode, decode, deliverBatch() (queueing
 *                             only), each timed on its own
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Bench\CpuTime;
use Nexus\Bench\Workers\WorldOrder;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Worker\Codec\BatchLayout;
use Nexus\Worker\Internal\Mesh;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\Workers;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$messages = 200_000;
$repeats = 5;
$only = null;
foreach (array_slice($argv, 1) as $argument) {
    if (preg_match('/^--only=((?:ints|strings|orders|ask)(?:-local)?)$/', $argument, $match) === 1) {
        $only = $match[1]; // one case, once, after the warm-up, silently: for callgrind
        continue;
    }
    if (preg_match('/^--(messages|repeats)=(\d+)$/', $argument, $match) !== 1) {
        fwrite(STDERR, "Usage: php bench/workers/mesh.php [--messages=N] [--repeats=N] [--only=CASE[-local]]\n");
        exit(2);
    }
    ${$match[1]} = (int) $match[2];
}

/**
 * @param list<float> $values
 */
function median(array $values): float
{
    sort($values);

    return $values[intdiv(count($values), 2)] ?? 0.0;
}

$loop = new Loop();
$loop->collectCyclesInBatches();
$dir = sys_get_temp_dir() . '/nexus-bench-mesh-' . getmypid();
@mkdir($dir, 0o700, true);
/** @var list<Workers> $workers */
$workers = [];
/** @var list<ActorSystem> $systems */
$systems = [];
for ($id = 0; $id < 2; ++$id) {
    $pair = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    assert(is_array($pair));
    $systems[$id] = new ActorSystem("worker-{$id}", new MemoryLogger(), $loop);
    $context = new WorkerContext($id, 2, 1, new PoolOptions(workers: 2), $dir, str_repeat('k', 32), null, $pair[1]);
    $workers[$id] = $context->join($systems[$id]);
    $workers[$id]->registerMessage(WorldOrder::class);
}

$count = 0;
$sink = Behavior::receive(static function (mixed $message) use (&$count): void {
    ++$count;
});
$echo = Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
    $ctx->reply($message);
});
// Sinks on worker 1; local ones on worker 0; the pump on worker 0.
$remoteSinks = [];
$localSinks = [];
for ($s = 0; $s < 16; ++$s) {
    $systems[1]->spawn($sink, "sink{$s}");
    $systems[0]->spawn($sink, "sink{$s}");
    $remoteSinks[] = $workers[0]->at(1, "/user/sink{$s}");
    $localSinks[] = $workers[0]->at(0, "/user/sink{$s}");
}
$systems[1]->spawn($echo, 'echo');
$systems[0]->spawn($echo, 'echo');
$remoteEcho = $workers[0]->at(1, '/user/echo');
$localEcho = $workers[0]->at(0, '/user/echo');

$baskets = WorldOrder::baskets();
$tiers = WorldOrder::TIERS;
$make = [
    'ints' => static fn(int $i): int => $i,
    'strings' => static fn(int $i): string => "order-{$i}",
    'orders' => static fn(int $i): WorldOrder => new WorldOrder("c{$i}", $baskets[$i & 63], $tiers[$i & 3]),
];

$pump = $systems[0]->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
    assert(is_array($message));
    [$targets, $make, $n, $from] = $message;
    assert(is_array($targets) && $make instanceof Closure && is_int($n) && is_int($from));
    $to = min($n, $from + 1000);
    $k = count($targets);
    for ($i = $from; $i < $to; ++$i) {
        $target = $targets[$i % $k];
        assert($target instanceof ActorRef);
        $target->tell($make($i));
    }
    if ($to < $n) {
        $ctx->self()->tell([$targets, $make, $n, $to]);
    }
}), 'pump');

/**
 * @param list<ActorRef> $targets
 */
$tells = static function (array $targets, Closure $make, int $n) use ($loop, $pump, &$count): float {
    $count = 0;
    $start = CpuTime::total();
    $pump->tell([$targets, $make, $n, 0]);
    while ($count < $n) {
        $loop->tick();
    }

    return (CpuTime::total() - $start) / $n * 1e6;
};
$asks = static function (?ActorRef $echo, int $n) use ($loop): float {
    assert($echo !== null);
    $start = CpuTime::total();
    $done = $loop->async(static function () use ($echo, $n): void {
        for ($i = 0; $i < $n; ++$i) {
            $echo->ask($i, 5.0)->await();
        }
    });
    while (!$done->isSettled()) {
        $loop->tick();
    }

    return (CpuTime::total() - $start) / $n * 1e6;
};

$median = median(...);

// The stages of one frame of 1,000 orders, each on its own.
$mesh0 = (new ReflectionProperty($workers[0], 'mesh'))->getValue($workers[0]);
$mesh1 = (new ReflectionProperty($workers[1], 'mesh'))->getValue($workers[1]);
assert($mesh0 instanceof Mesh && $mesh1 instanceof Mesh);
$codec = $mesh0->codec;
$counted = static function () use (&$count): int {
    return $count;
};
/** @return array<string, float> */
$stages = static function () use ($mesh1, $codec, $make, $loop, $counted, &$count): array {
    $frame = 1000;
    $rounds = 50;
    $messages = [];
    for ($i = 0; $i < $frame; ++$i) {
        $messages[] = ['/user/sink' . ($i % 16), $make['orders']($i), 0, '/user/pump'];
    }
    $batch = BatchLayout::build($codec->classTable(), $messages);
    $format = 0;
    $start = CpuTime::total();
    for ($r = 0; $r < $rounds; ++$r) {
        $encoded = $codec->encode($batch, 1, $format);
    }
    $encode = (CpuTime::total() - $start) / ($rounds * $frame) * 1e6;
    $start = CpuTime::total();
    for ($r = 0; $r < $rounds; ++$r) {
        $decoded = $codec->decode($format, $encoded);
    }
    $decode = (CpuTime::total() - $start) / ($rounds * $frame) * 1e6;
    $deliver = 0.0;
    for ($r = 0; $r < $rounds; ++$r) {
        $decoded = $codec->decode($format, $encoded);
        $count = 0;
        $start = CpuTime::total();
        $mesh1->deliverBatch($decoded, 1, 0);
        $deliver += CpuTime::total() - $start;
        while ($counted() < $frame) {
            $loop->tick();
        }
    }

    return ['encode' => $encode, 'decode' => $decode, 'deliver' => $deliver / ($rounds * $frame) * 1e6, 'bytes' => strlen($encoded) / $frame];
};

// Connect and warm up.
$tells($remoteSinks, $make['ints'], 20_000);
$asks($remoteEcho, 1_000);

if ($only !== null) {
    $local = str_ends_with($only, '-local');
    $case = $local ? substr($only, 0, -6) : $only;
    if ($case === 'ask') {
        $asks($local ? $localEcho : $remoteEcho, $messages);
    } else {
        $tells($local ? $localSinks : $remoteSinks, $make[$case], $messages);
    }
    exit(0);
}

/** @var array<string, array<string, list<float>>> $results */
$results = [];
for ($r = 0; $r < $repeats; ++$r) {
    foreach ($make as $case => $maker) {
        $results[$case]['remote'][] = $tells($remoteSinks, $maker, $messages);
        $results[$case]['local'][] = $tells($localSinks, $maker, $messages);
    }
    $results['ask']['remote'][] = $asks($remoteEcho, intdiv($messages, 20));
    $results['ask']['local'][] = $asks($localEcho, intdiv($messages, 20));
    foreach ($stages() as $stage => $value) {
        $results['stages'][$stage][] = $value;
    }
}

printf("Mesh micro cases: PHP %s, JIT %s, %s messages per case, CPU time per message, median of %d\n\n", PHP_VERSION, Nexus\Bench\Environment::jitEnabled() ? 'on' : 'off', number_format($messages), $repeats);
printf("%-10s %12s %12s %12s\n", 'case', 'crossing µs', 'local µs', 'mesh µs');
foreach (['ints', 'strings', 'orders', 'ask'] as $case) {
    $remote = $median($results[$case]['remote'] ?? []);
    $local = $median($results[$case]['local'] ?? []);
    printf("%-10s %12.3f %12.3f %12.3f\n", $case, $remote, $local, $remote - $local);
}
echo "\nOne frame of 1,000 orders, per message:\n";
foreach ($results['stages'] ?? [] as $stage => $values) {
    printf($stage === 'bytes' ? "  %-8s %8.1f bytes\n" : "  %-8s %8.3f µs\n", $stage, $median($values));
}
foreach (glob($dir . '/*') ?: [] as $file) {
    @unlink($file);
}
@rmdir($dir);
