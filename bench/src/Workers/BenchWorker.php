<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Worker\EntityKind;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\WorkerMain;
use Nexus\Worker\Workers;

/**
 * The worker side of `make bench-workers`. Every worker starts the same local actors (a sink, an
 * echo, a pump, a world driver) and the order shards; worker 0 then measures, writes the results
 * as JSON to $resultFile, and asks the master to stop the pool.
 */
final class BenchWorker implements WorkerMain
{
    public const SHARDS = 16;

    /**
     * @param 'messaging'|'world' $mode
     */
    public function __construct(
        private readonly string $mode,
        private readonly string $resultFile,
        private readonly int $messages,
        private readonly int $asks,
        private readonly int $orders,
    ) {}

    public function run(WorkerContext $context): int
    {
        $loop = new Loop();
        $system = new ActorSystem("bench-{$context->id}", new StderrLogger(), $loop);
        $workers = $context->join($system);
        $workers->registerMessage(WorldOrder::class);
        $system->spawn(Actors::sink(), 'sink');
        $system->spawn(Actors::echo(), 'echo');
        $system->spawn(Actors::pump(), 'pump');
        $shards = $workers->kind('shard', static fn(): Behavior => Actors::shard());
        $system->spawn(self::driver($shards), 'driver');
        $stop = static function () use ($system): void {
            $system->shutdown(2.0);
        };
        $loop->onSignal(\SIGTERM, $stop);
        $context->watchMaster($loop, $stop);
        $context->ready();
        if ($context->id === 0) {
            $loop->async(function () use ($loop, $workers, $system, $shards): void {
                try {
                    $results = $this->mode === 'messaging' ? $this->messaging($workers, $system) : $this->world($loop, $workers, $shards);
                    file_put_contents($this->resultFile, json_encode($results, \JSON_THROW_ON_ERROR));
                } catch (\Throwable $e) {
                    file_put_contents($this->resultFile, json_encode(['error' => $e::class . ': ' . $e->getMessage()]));
                }
                posix_kill(posix_getppid(), \SIGTERM);
            });
        }
        $system->run();

        return 0;
    }

    /**
     * @return array<string, float|int>
     */
    private function messaging(Workers $workers, ActorSystem $system): array
    {
        $this->waitForAll($workers);
        $pump = $system->lookup('/user/pump');
        $localSink = $workers->at(0, '/user/sink');
        $remoteSink = $workers->at(1, '/user/sink');
        \assert($pump !== null && $localSink !== null && $remoteSink !== null);
        $this->pump($pump, [$localSink], intdiv($this->messages, 10)); // warm-up
        $this->pump($pump, [$remoteSink], intdiv($this->messages, 10));

        $local = $this->pump($pump, [$localSink], $this->messages);
        $remote = $this->pump($pump, [$remoteSink], $this->messages);

        $localEcho = $workers->at(0, '/user/echo');
        $remoteEcho = $workers->at(1, '/user/echo');
        \assert($localEcho !== null && $remoteEcho !== null);
        $this->asks($localEcho, intdiv($this->asks, 10));
        $this->asks($remoteEcho, intdiv($this->asks, 10));
        $localAsk = $this->asks($localEcho, $this->asks);
        $remoteAsk = $this->asks($remoteEcho, $this->asks);

        $sinks = [];
        for ($w = 0; $w < $workers->count; ++$w) {
            $sink = $workers->at($w, '/user/sink');
            \assert($sink !== null);
            $sinks[] = $sink;
        }
        $fanout = $this->pump($pump, $sinks, 5000);

        return [
            'workers' => $workers->count,
            'messages' => $this->messages,
            'pair_msgs_per_s' => $this->messages / $remote,
            'local_msgs_per_s' => $this->messages / $local,
            'asks' => $this->asks,
            'ask_rtt_us' => $remoteAsk / $this->asks * 1e6,
            'local_ask_rtt_us' => $localAsk / $this->asks * 1e6,
            'fanout_messages' => 5000 * \count($sinks),
            'fanout_ms' => $fanout * 1000,
            'fanout_msgs_per_s' => 5000 * \count($sinks) / $fanout,
        ];
    }

    /**
     * @return array<string, float|int>
     */
    private function world(Loop $loop, Workers $workers, EntityKind $shards): array
    {
        $this->waitForAll($workers);
        $this->orders($loop, $workers, $shards, intdiv($this->orders, 10)); // warm-up
        $start = hrtime(true);
        $this->orders($loop, $workers, $shards, $this->orders);
        $elapsed = (hrtime(true) - $start) / 1e9;
        $total = $this->orders * $workers->count;

        return [
            'workers' => $workers->count,
            'orders' => $total,
            'orders_per_s' => $total / $elapsed,
            'seconds' => $elapsed,
        ];
    }

    /**
     * Every worker's driver sends $perWorker orders; returns once every shard counted them all.
     */
    private function orders(Loop $loop, Workers $workers, EntityKind $shards, int $perWorker): void
    {
        $before = $this->shardTotal($shards);
        $sent = [];
        for ($w = 0; $w < $workers->count; ++$w) {
            $driver = $workers->at($w, '/user/driver');
            \assert($driver !== null);
            $sent[] = $driver->ask(['run', $perWorker], 120.0);
        }
        foreach ($sent as $future) {
            $future->await();
        }
        $expected = $before + $perWorker * $workers->count;
        while ($this->shardTotal($shards) < $expected) {
            $this->pause($loop, 0.002); // polling without a pause would compete with the orders
        }
    }

    private function pause(Loop $loop, float $seconds): void
    {
        /** @var Deferred<null> $timer */
        $timer = new Deferred($loop);
        $loop->delay($seconds, static fn() => $timer->resolve(null));
        $timer->future()->await();
    }

    private function shardTotal(EntityKind $shards): int
    {
        $asks = [];
        for ($s = 0; $s < self::SHARDS; ++$s) {
            $asks[] = $shards->ref("s{$s}")->ask('stats', 30.0);
        }
        $total = 0;
        foreach ($asks as $ask) {
            $stats = $ask->await();
            \assert(\is_array($stats) && \is_int($stats[0]));
            $total += $stats[0];
        }

        return $total;
    }

    private static function driver(EntityKind $shards): Behavior
    {
        $refs = [];
        for ($s = 0; $s < self::SHARDS; ++$s) {
            $refs[] = $shards->ref("s{$s}");
        }
        $baskets = [];
        for ($b = 0; $b < 64; ++$b) {
            $items = [];
            for ($i = 0; $i <= $b % 5; ++$i) {
                $items[] = [round(1.5 + $b * 0.75 + $i, 2), 1 + ($b + $i) % 4];
            }
            $baskets[] = $items;
        }
        $tiers = ['gold', 'silver', 'standard', 'standard'];

        return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($refs, $baskets, $tiers): void {
            \assert(\is_array($message) && \is_int($message[1]));
            [, $n] = $message;
            $from = \is_int($message[2] ?? null) ? $message[2] : 0;
            $replyTo = $message[3] ?? $ctx->sender();
            $to = min($n, $from + Actors::BURST);
            for ($i = $from; $i < $to; ++$i) {
                $refs[$i % self::SHARDS]->tell(new WorldOrder("c{$i}", $baskets[$i & 63], $tiers[$i & 3]));
            }
            if ($to < $n) {
                $ctx->self()->tell(['run', $n, $to, $replyTo]);
            } elseif ($replyTo instanceof ActorRef) {
                $replyTo->tell('sent');
            }
        });
    }

    /**
     * @param list<ActorRef> $targets
     *
     * @return float seconds until every target has received $n messages
     */
    private function pump(ActorRef $pump, array $targets, int $n): float
    {
        $start = hrtime(true);
        $done = array_map(static fn(ActorRef $target): Future => $target->ask(['expect', $n], 120.0), $targets);
        $pump->tell(['run', $targets, $n]);
        foreach ($done as $future) {
            $future->await();
        }

        return (hrtime(true) - $start) / 1e9;
    }

    /**
     * @return float seconds for $n asks one after the other
     */
    private function asks(ActorRef $echo, int $n): float
    {
        $start = hrtime(true);
        for ($i = 0; $i < $n; ++$i) {
            $echo->ask($i, 10.0)->await();
        }

        return (hrtime(true) - $start) / 1e9;
    }

    private function waitForAll(Workers $workers): void
    {
        for ($w = 0; $w < $workers->count; ++$w) {
            $sink = $workers->at($w, '/user/sink');
            \assert($sink !== null);
            $sink->ask('ping', 10.0)->await();
        }
    }
}
