<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * The event stream as a broker: 10 actors subscribe to an event class, 10K events are published
 * and the loop runs until every subscriber has handled every event. The figure counts deliveries
 * (events x subscribers).
 */
final class BrokerPublish implements BenchCase
{
    private const SUBSCRIBERS = 10;
    private const EVENTS = 10_000;

    private int $events = 0;
    /** @var list<Tally> */
    private array $tallies = [];
    private int $reported = 0;

    public function name(): string
    {
        return 'broker.publish';
    }

    public function unit(): string
    {
        return 'deliveries/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '10K EventStream publishes to 10 subscriber actors, timed until all are handled';
    }

    public function run(int $scale): float
    {
        $this->events = $events = Bench::scaled(self::EVENTS, $scale, 20);
        $this->tallies = [];
        $system = Bench::system();
        $stream = $system->eventStream;
        for ($s = 0; $s < self::SUBSCRIBERS; ++$s) {
            $this->tallies[] = $tally = new Tally();
            $subscriber = $system->spawn(Behavior::receive(static function (BrokerEvent $event) use ($tally): void {
                ++$tally->count;
                $tally->sum += $event->sequence;
            }));
            $stream->subscribe($subscriber, BrokerEvent::class);
        }
        $system->loop->runUntilIdle();
        $reported = 0;

        $start = hrtime(true);
        for ($i = 0; $i < $events; ++$i) {
            $reported += $stream->publish(new BrokerEvent($i));
        }
        $system->loop->runUntilIdle();
        $elapsed = hrtime(true) - $start;

        $this->reported = $reported;
        Bench::dispose($system);

        return Bench::perSecond($events * self::SUBSCRIBERS, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'subscribers', self::SUBSCRIBERS, \count($this->tallies));
        Check::same($this->name(), 'deliveries publish() reported', $this->events * self::SUBSCRIBERS, $this->reported);
        foreach ($this->tallies as $tally) {
            $tally->expectSequence($this->name(), $this->events);
        }
    }
}
