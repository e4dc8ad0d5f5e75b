<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * Local asks keep their timeouts in one list per length under one loop timer (AskTimeouts):
 * each ask still ends at its own deadline, an answered one leaves nothing behind, and only asks
 * that wait keep the loop alive.
 */
final class AskTimeoutsTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private ActorSystem $system;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $this->system = new ActorSystem('timeouts', new MemoryLogger(), $this->loop);
    }

    public function testAsksOfOneLengthEachTimeOutAtTheirOwnDeadline(): void
    {
        $silent = $this->system->spawn(Behavior::ignore());
        /** @var array<string, float> $endedAt */
        $endedAt = [];
        foreach (['first' => 0.0, 'second' => 0.25, 'third' => 0.5] as $name => $askedAt) {
            $this->loop->delay($askedAt, function () use ($silent, $name, &$endedAt): void {
                $silent->ask($name, 1.0)->onSettle(function (?\Throwable $error) use ($name, &$endedAt): void {
                    self::assertInstanceOf(AskTimeoutException::class, $error);
                    $endedAt[$name] = $this->clock->now();
                });
            });
        }

        $this->loop->run();

        self::assertEqualsWithDelta(['first' => 1.0, 'second' => 1.25, 'third' => 1.5], $endedAt, 1e-9);
        self::assertSame(3, $this->system->stats->askTimeouts);
        self::assertSame(0, $this->system->askTimeouts->count());
    }

    public function testAShorterAskMadeAfterALongerOneTimesOutFirst(): void
    {
        $silent = $this->system->spawn(Behavior::ignore());
        /** @var list<string> $order */
        $order = [];
        foreach (['long' => 2.0, 'short' => 0.5, 'default' => 5.0, 'again short' => 0.5] as $name => $seconds) {
            $silent->ask($name, $seconds)->onSettle(function () use ($name, &$order): void {
                $order[] = $name . ' at ' . $this->clock->now();
            });
        }

        $this->loop->run();

        self::assertSame(['short at 0.5', 'again short at 0.5', 'long at 2', 'default at 5'], $order);
    }

    public function testAnAnsweredAskLeavesNothingAndNoLongerKeepsTheLoopAlive(): void
    {
        $echo = $this->system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply($message);
        }));
        $this->loop->runUntilIdle();

        for ($i = 0; $i < 1_000; ++$i) {
            self::assertSame($i, $echo->ask($i, 30.0)->await());
        }
        self::assertSame(0, $this->system->askTimeouts->count());
        $this->system->stop($echo);
        $this->loop->run(); // returns at once: the 30 s timer does not hold the loop

        self::assertSame(0.0, $this->clock->now());
        self::assertSame(0, $this->system->stats->askTimeouts);
    }

    public function testAWaitingAskKeepsTheLoopAliveUntilItTimesOutAfterAnEarlierOneWasAnswered(): void
    {
        $echo = $this->system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message !== 'ignored') {
                $ctx->reply($message);
            }
        }));
        self::assertSame('answered', $echo->ask('answered', 3.0)->await());
        $this->loop->delay(1.0, static function (): void {});
        $this->loop->run();

        try {
            // From top-level code: only the ask's own timer can end this wait.
            $echo->ask('ignored', 3.0)->await();
            self::fail('The ask should have timed out.');
        } catch (AskTimeoutException $e) {
            self::assertStringContainsString('within 3.000 s', $e->getMessage());
        }
        self::assertSame(4.0, $this->clock->now());
    }
}
