<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * A reload in one process: worker 1 (generation 1) is replaced by a new worker 1 (generation 2)
 * while worker 0 keeps sending to a named actor and to an entity that live on worker 1. There is
 * never more than one live copy of each, the old copy stops after the message in hand before the
 * new one starts, and every message is handled exactly once, in the order it was sent.
 */
final class MeshHandOffTest extends TestCase
{
    use RunsWorkers;

    /** @var list<array{string, int, int}> what happened: [event, generation, message] */
    private array $events = [];

    public function testANamedActorAndAnEntityPassToTheNewWorkerWithoutTwoLiveCopiesOrALostMessage(): void
    {
        $sender = $this->worker(0);
        $name = $this->nameOwnedBy($sender, 1);
        $entity = $this->entityOwnedBy($sender, 1);
        $sender->named($name, $this->counter(0));
        $accounts = $sender->kind('account', fn(string $id): Behavior => $this->counter(0));
        $old = $this->worker(1, generation: 1);
        $old->named($name, $this->counter(1));
        $old->kind('account', fn(string $id): Behavior => $this->counter(1));
        $oldLocal = $this->systems[1]->lookup("/user/{$name}");
        self::assertNotNull($oldLocal);

        $total = 3_000;
        $named = $sender->ref($name);
        $account = $accounts->ref($entity);
        /** @var list<Future<mixed>> $asks */
        $asks = [];
        $done = $this->loop->async(function () use ($named, $account, $total, &$asks): void {
            for ($n = 1; $n <= $total; ++$n) {
                $named->tell($n);
                $account->tell($n);
                if ($n % 100 === 0) {
                    $asks[] = $named->ask(-$n, 10.0);
                }
                if ($n % 20 === 0) {
                    $this->pause(0.001);
                }
            }
        });
        $this->runUntil(fn(): bool => $this->handled(1) >= 400); // the old copies are busy

        $new = $this->worker(1, generation: 2); // a new worker takes the slot's socket name ...
        $new->named($name, $this->counter(2));
        $new->kind('account', fn(string $id): Behavior => $this->counter(2));
        $this->runUntil(fn(): bool => $this->handled(1) >= 800);
        self::assertSame(0, $this->started(2), 'the new copies wait while the old ones live');

        $this->contexts[1]->handOff(); // ... and the old one gets SIGTERM
        $lateLocalAsk = $oldLocal->ask(-1, 10.0); // a request still in flight on the old worker
        $this->systems[1]->shutdown(5.0);
        $this->runUntil(function () use ($done, &$asks, $lateLocalAsk, $total): bool {
            return $done->isSettled() && $lateLocalAsk->isSettled() && $this->handledMessages() === 2 * $total
                && array_filter($asks, static fn(Future $f): bool => !$f->isSettled()) === [];
        });

        self::assertSame(-1, $lateLocalAsk->await(), 'the old worker\'s ask was answered by the new copy');
        foreach ($asks as $ask) {
            self::assertLessThan(0, $ask->await(), 'no ask failed during the reload');
        }
        $this->assertOneCopyAtATime();
        $this->assertEachMessageOnceInOrder($total);
        self::assertSame(2, $this->started(2), 'the new copies started');
        self::assertFalse($this->logged(2, 'warning', 'starts its named actors and entities'), 'HandOffComplete opened the gate, not the timeout or the end of the old process');
    }

    private function counter(int $generation): Behavior
    {
        return Behavior::setup(function (ActorContext $ctx) use ($generation): Behavior {
            $this->events[] = ['start', $generation, 0];

            return Behavior::receive(function (int $n, ActorContext $ctx) use ($generation): void {
                if ($n < 0) {
                    $ctx->reply($n);

                    return;
                }
                $this->events[] = ['handled', $generation, $n];
            })->onSignal(function (Signal $signal) use ($generation): void {
                if ($signal instanceof PostStop) {
                    $this->events[] = ['stop', $generation, 0];
                }
            });
        });
    }

    private function assertOneCopyAtATime(): void
    {
        $live = 0;
        $oldStopped = 0;
        $newStarted = false;
        foreach ($this->events as [$event, $generation]) {
            if ($event === 'start') {
                ++$live;
                if ($generation === 2) {
                    self::assertSame(2, $oldStopped, 'a new copy starts only once both old ones have stopped');
                    $newStarted = true;
                }
            } elseif ($event === 'stop') {
                --$live;
                $oldStopped += $generation === 1 ? 1 : 0;
            } elseif ($event === 'handled' && $generation === 1) {
                self::assertFalse($newStarted, 'the old copies handled nothing once a new one had started');
            }
            self::assertLessThanOrEqual(2, $live, 'never two live copies of the same actor');
        }
    }

    private function assertEachMessageOnceInOrder(int $total): void
    {
        $handled = [];
        foreach ($this->events as [$event, $generation, $n]) {
            if ($event === 'handled') {
                $handled[] = $n;
            }
        }
        self::assertCount(2 * $total, $handled);
        // Each actor gets 1..total once, in order; the two actors' messages interleave.
        $perActor = [[], []];
        $next = [1, 1];
        foreach ($handled as $n) {
            $actor = $next[0] === $n ? 0 : 1;
            self::assertSame($next[$actor], $n, 'in order, none lost, none twice');
            $perActor[$actor][] = $n;
            ++$next[$actor];
        }
        self::assertSame([$total + 1, $total + 1], $next);
    }

    private function handled(int $generation): int
    {
        return \count(array_filter($this->events, static fn(array $e): bool => $e[0] === 'handled' && $e[1] === $generation));
    }

    private function handledMessages(): int
    {
        return \count(array_filter($this->events, static fn(array $e): bool => $e[0] === 'handled'));
    }

    private function started(int $generation): int
    {
        return \count(array_filter($this->events, static fn(array $e): bool => $e[0] === 'start' && $e[1] === $generation));
    }

    private function pause(float $seconds): void
    {
        /** @var Deferred<null> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay($seconds, static fn() => $deferred->resolve(null));
        $deferred->future()->await();
    }

    private function nameOwnedBy(Workers $workers, int $owner): string
    {
        for ($i = 0;; ++$i) {
            if ($workers->ownerOf("ledger-{$i}") === $owner) {
                return "ledger-{$i}";
            }
        }
    }

    private function entityOwnedBy(Workers $workers, int $owner): string
    {
        for ($i = 0;; ++$i) {
            if ($workers->ownerOf("account/a{$i}") === $owner) {
                return "a{$i}";
            }
        }
    }
}
