<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CompositeException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class FutureCombinatorTest extends TestCase
{
    private Loop $loop;

    protected function setUp(): void
    {
        $this->loop = new Loop(new VirtualClock());
    }

    public function testAllKeepsTheKeysAndTheirOrderWhateverOrderTheValuesArriveIn(): void
    {
        [$a, $b, $c] = [$this->deferred(), $this->deferred(), $this->deferred()];
        $all = Future::all(['a' => $a->future(), 'b' => $b->future(), 'c' => $c->future()]);
        $c->resolve(3);
        $a->resolve(1);
        self::assertFalse($all->isSettled());
        $b->resolve(2);
        self::assertSame(['a' => 1, 'b' => 2, 'c' => 3], $all->await());
    }

    public function testAllOfNothingIsAnEmptyArray(): void
    {
        /** @var array<string, Future<int>> $none */
        $none = [];
        self::assertSame([], Future::all($none)->await());
    }

    public function testAllFailsWithTheFirstFailureAndTheOthersCountAsHandled(): void
    {
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        [$a, $b] = [$this->deferred(), $this->deferred()];
        $all = Future::all([$a->future(), $b->future()]);
        $first = new \RuntimeException('first');
        $a->reject($first);
        $b->reject(new \RuntimeException('second'));
        try {
            $all->await();
            self::fail('all() should have failed');
        } catch (\RuntimeException $e) {
            self::assertSame($first, $e);
        }
        unset($a, $b, $all);
        $this->loop->runUntilIdle();
        self::assertSame([], $errors, 'the second failure went to all(), which had already failed');
    }

    public function testAnyTakesTheFirstValueAndFailsOnlyWhenAllFail(): void
    {
        [$a, $b] = [$this->deferred(), $this->deferred()];
        $any = Future::any([$a->future(), $b->future()]);
        $a->reject(new \RuntimeException('a failed'));
        self::assertFalse($any->isSettled());
        $b->resolve('b');
        self::assertSame('b', $any->await());

        [$c, $d] = [$this->deferred(), $this->deferred()];
        $none = Future::any(['c' => $c->future(), 'd' => $d->future()]);
        $c->reject(new \RuntimeException('c failed'));
        $d->reject(new \LogicException('d failed'));
        try {
            $none->await();
            self::fail('any() should have failed');
        } catch (CompositeException $e) {
            self::assertSame(['c', 'd'], array_keys($e->errors()));
            self::assertSame('d failed', $e->errors()['d']->getMessage());
        }
    }

    public function testRaceSettlesAsTheFirstToSettle(): void
    {
        [$a, $b] = [$this->deferred(), $this->deferred()];
        $race = Future::race([$a->future(), $b->future()]);
        $failure = new \RuntimeException('b lost the race by failing first');
        $b->reject($failure);
        $a->resolve('a');
        $this->expectExceptionObject($failure);
        $race->await();
    }

    public function testAnyAndRaceNeedAFuture(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        // @phpstan-ignore argument.type, argument.templateType (the runtime guard against what the type forbids)
        Future::race([]);
    }

    /**
     * @return Deferred<mixed>
     */
    private function deferred(): Deferred
    {
        /** @var Deferred<mixed> */
        return new Deferred($this->loop);
    }
}
