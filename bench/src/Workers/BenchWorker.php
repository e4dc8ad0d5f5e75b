<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
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
    public const SHARDS = 256;

    /**
     * @param 'messaging'|'world'|'world-local' $mode world-local: every worker has its own shards and
     *                                                   nothing crosses (the machine's parallel ceiling)
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
        $loop->collectCyclesInBatches(); // as nexus serve does
        $system = new ActorSystem("bench-{$context->id}", new StderrLogger(), $loop);
        $workers = $context->join($system);
        $workers->registerMessage(WorldOrder::class);
        $system->spawn(Actors::sink(), 'sink');
        $system->spawn(Actors::echo(), 'echo');
        $system->spawn(Actors::pump(), 'pump');
        $shards = [];
        if ($this->mode === 'world-local') {
            for ($s = 0; $s < self::SHARDS; ++$s) {
                $shards[] = $system->spawn(Actors::shard(), "local-shard-{$s}");
            }
        } else {
            $kind = $workers->kind('shard', static fn(): Behavior => Actors::shard());
            for ($s = 0; $s < self::SHARDS; ++$s) {
                $shards[] = $kind->ref("s{$s}");
            }
        }
        $system->spawn(self::driver($shards), 'driver');
        $stop = static function () use ($system): void {
            $system->shutdown(2.0);
        };
        $loop->onSignal(\SIGTERM, $stop);
        $context->watchMaster($loop, $stop);
        $context->ready();
        if ($context->id === 0) {
            $loop->async(function () use ($workers, $system): void {
                try {
                    $results = $this->mode === 'messaging' ? $this->messaging($workers, $system) : $this->world($workers);
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
    private function world(Workers $workers): array
    {
        $this->waitForAll($workers);
        $this->orders($workers, intdiv($this->orders, 10)); // warm-up
        $before = $this->counted($workers);
        $start = hrtime(true);
        $this->orders($workers, $this->orders);
        $elapsed = (hrtime(true) - $start) / 1e9;
        $total = $this->orders * $workers->count;
        $counted = $this->counted($workers) - $before;
        if ($counted !== $total) {
            throw new \RuntimeException("The shards counted {$counted} orders of {$total}.");
        }

        return [
            'workers' => $workers->count,
            'orders' => $total,
            'orders_per_s' => $total / $elapsed,
            'seconds' => $elapsed,
        ];
    }

    /**
     * Every worker's driver sends $perWorker orders and answers once the shards have counted
     * them; the count is then checked, outside the time measured by the caller.
     */
    private function orders(Workers $workers, int $perWorker): void
    {
        $done = [];
        foreach ($this->drivers($workers) as $driver) {
            $done[] = $driver->ask(['run', $perWorker], 120.0);
        }
        foreach ($done as $future) {
            $future->await();
        }
    }

    /**
     * Orders counted by the shards so far: those of every worker's driver when each has its own
     * (world-local), else those of the shared ones.
     */
    private function counted(Workers $workers): int
    {
        $drivers = $this->drivers($workers);
        $asks = [];
        foreach ($this->mode === 'world-local' ? $drivers : [$drivers[0]] as $driver) {
            $asks[] = $driver->ask('total', 30.0);
        }
        $total = 0;
        foreach ($asks as $ask) {
            $count = $ask->await();
            \assert(\is_int($count));
            $total += $count;
        }

        return $total;
    }

    /**
     * @return list<ActorRef>
     */
    private function drivers(Workers $workers): array
    {
        $drivers = [];
        for ($w = 0; $w < $workers->count; ++$w) {
            $driver = $workers->at($w, '/user/driver');
            \assert($driver !== null);
            $drivers[] = $driver;
        }

        return $drivers;
    }

    /**
     * ['run', n]: sends n orders over the shards, a burst per turn, then asks every shard for its
     * stats (each ask arrives after this driver's orders, order being kept per sender and
     * receiver) and answers 'done' once all have replied: every order has been counted.
     * 'total': answers the number of orders the shards have counted.
     *
     * @param list<ActorRef> $shards
     */
    private static function driver(array $shards): Behavior
    {
        $baskets = [];
        for ($b = 0; $b < 64; ++$b) {
            $items = [];
            for ($i = 0; $i <= $b % 5; ++$i) {
                $items[] = [round(1.5 + $b * 0.75 + $i, 2), 1 + ($b + $i) % 4];
            }
            $baskets[] = $items;
        }
        $tiers = ['gold', 'silver', 'standard', 'standard'];
        $count = \count($shards);

        return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($shards, $baskets, $tiers, $count): void {
            if ($message === 'total') {
                $ctx->reply(self::total($shards));

                return;
            }
            \assert(\is_array($message) && \is_int($message[1]));
            [, $n] = $message;
            $from = \is_int($message[2] ?? null) ? $message[2] : 0;
            $replyTo = $message[3] ?? $ctx->sender();
            $to = min($n, $from + Actors::BURST);
            for ($i = $from; $i < $to; ++$i) {
                $shards[$i % $count]->tell(new WorldOrder("c{$i}", $baskets[$i & 63], $tiers[$i & 3]));
            }
            if ($to < $n) {
                $ctx->self()->tell(['run', $n, $to, $replyTo]);
            } elseif ($replyTo instanceof ActorRef) {
                self::total($shards);
                $replyTo->tell('done');
            }
        });
    }

    /**
     * @param list<ActorRef> $shards
     */
    private static function total(array $shards): int
    {
        $asks = array_map(static fn(ActorRef $shard): Future => $shard->ask('stats', 30.0), $shards);
        $total = 0;
        foreach ($asks as $ask) {
            $stats = $ask->await();
            \assert(\is_array($stats) && \is_int($stats[0]));
            $total += $stats[0];
        }

        return $total;
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
