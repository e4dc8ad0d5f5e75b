<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Postgres\Exception\PgPoolClosedException;
use Nexus\Postgres\Exception\PgPoolTimeoutException;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\PgConnection;
use Nexus\Postgres\PgPool;
use Nexus\Postgres\PgResult;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Future;

final class PgPoolTest extends PostgresTestCase
{
    private ?PgPool $pool = null;

    protected function tearDown(): void
    {
        $this->pool?->close();
        parent::tearDown();
    }

    public function testFiveSleepsOnAPoolOfFiveRunAtTheSameTime(): void
    {
        $pool = $this->pool(5);
        $pool->query('SELECT 1');
        $source = new DeferredCancellation($this->loop);
        $futures = [];
        for ($i = 0; $i < 5; ++$i) {
            $futures[] = $pool->queryAsync('SELECT pg_sleep(60), $1::int AS i', [$i], $source->cancellation());
        }
        // All five run on the server at the same time (each would take a minute one after another).
        $this->pollUntil(fn(): bool => \count($this->admin("SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%' AND state = 'active'")) === 5);
        $source->cancel();
        foreach ($futures as $future) {
            $future->ignore();
        }
        $this->pollUntil(fn(): bool => $this->admin("SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%' AND state = 'active'") === []);

        self::assertSame(5, $pool->size());
        self::assertSame(0, $pool->waitingCount());
        self::assertSame([0, 1, 2, 3, 4], array_map(static fn(int $i): mixed => $pool->query('SELECT $1::int', [$i])->scalar(), range(0, 4)));
    }

    public function testNeverOpensMoreThanMaxSizeAndQueuesTheRest(): void
    {
        $pool = $this->pool(2);
        $futures = [];
        for ($i = 0; $i < 6; ++$i) {
            $futures[] = $pool->queryAsync('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)');
        }
        $pids = array_map(static fn(Future $f): string => var_export($f->await()->scalar(), true), $futures);

        self::assertCount(2, array_unique($pids));
        self::assertSame(2, $pool->size());
        self::assertSame(2, $pool->idleCount());
        self::assertSame(0, $pool->waitingCount());
    }

    public function testAWaiterGivesUpAfterTheWaitTimeout(): void
    {
        $pool = $this->pool(1, waitTimeout: 0.1);
        $busy = $pool->queryAsync('SELECT pg_sleep(0.5)');
        $this->runUntil(static fn(): bool => $pool->waitingCount() === 0 && $pool->idleCount() === 0);
        $started = $this->loop->now();

        try {
            $pool->query('SELECT 1');
            self::fail('no connection can be free in time');
        } catch (PgPoolTimeoutException $e) {
            self::assertStringContainsString('maxSize', $e->getMessage());
            self::assertStringContainsString('within 0.100 s', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.1, $this->loop->now() - $started, 'not before the wait timeout');
        self::assertFalse($busy->isSettled(), 'it gave up while the connection was still busy');
        self::assertInstanceOf(PgResult::class, $busy->await());
        self::assertSame(1, $pool->query('SELECT 1')->scalar());
    }

    public function testAnOpenTransactionIsRolledBackOnReturn(): void
    {
        $pool = $this->pool(1);
        $pool->query('DROP TABLE IF EXISTS pool_tx; CREATE TABLE pool_tx (v int)');

        $pool->withConnection(static function (PgConnection $db): void {
            $db->query('BEGIN');
            $db->query('INSERT INTO pool_tx VALUES (1)');
        });
        $pool->query('BEGIN');

        $status = $pool->withConnection(static fn(PgConnection $db): int => $db->transactionStatus());
        self::assertSame(\PGSQL_TRANSACTION_IDLE, $status);
        self::assertSame(0, $pool->query('SELECT count(*)::int FROM pool_tx')->scalar());
        self::assertSame(1, $pool->size(), 'the same connection was reused');
    }

    public function testLeftoverQueriesFinishBeforeTheConnectionIsReused(): void
    {
        $pool = $this->pool(1);
        $leftover = null;
        $pool->withConnection(static function (PgConnection $db) use (&$leftover): void {
            $leftover = $db->queryAsync('SELECT pg_sleep(0.1), 1 AS one');
        });
        self::assertSame(2, $pool->query('SELECT 2')->scalar());
        self::assertInstanceOf(Future::class, $leftover);
        self::assertTrue($leftover->isSettled());
    }

    public function testABrokenConnectionIsReplaced(): void
    {
        $pool = $this->pool(1);
        $first = $pool->acquireAsync()->await();
        $firstPid = $first->pid();
        $pool->release($first);
        $this->admin("SELECT pg_terminate_backend({$firstPid})");
        // The idle connection notices as soon as the loop reads the server's goodbye.
        $this->pollUntil(static fn(): bool => $first->isClosed());

        $secondPid = $pool->query('SELECT pg_backend_pid()')->scalar();

        self::assertIsInt($secondPid);
        self::assertNotSame($firstPid, $secondPid);
        self::assertSame(1, $pool->size());
    }

    public function testPoolTransactionCommitsAndRollsBack(): void
    {
        $pool = $this->pool(2);
        $pool->query('DROP TABLE IF EXISTS pool_tx2; CREATE TABLE pool_tx2 (v int)');

        $pool->transaction(static fn(PgConnection $tx): PgResult => $tx->query('INSERT INTO pool_tx2 VALUES (1)'));
        try {
            $pool->transaction(static function (PgConnection $tx): void {
                $tx->query('INSERT INTO pool_tx2 VALUES (2)');
                $tx->query('INSERT INTO pool_tx2 VALUES ($1)', ['not a number']);
            });
            self::fail('the bad insert must fail');
        } catch (PgQueryException $e) {
            self::assertSame('22P02', $e->sqlState);
        }

        self::assertSame([1], $pool->query('SELECT v FROM pool_tx2')->column());
    }

    public function testAWaitingQueryGetsTheNextFreeConnection(): void
    {
        $pool = $this->pool(1);
        $first = $pool->queryAsync('SELECT pg_sleep(0.1), 1 AS n');
        $second = $pool->queryAsync('SELECT 2 AS n');
        self::assertSame(2, $pool->waitingCount(), 'the first waits for the connection being opened, the second for it to come back');
        self::assertSame(1, $pool->size());

        self::assertSame(2, $second->await()->first()['n'] ?? null);
        self::assertTrue($first->isSettled());
    }

    public function testClosedPoolRefusesWork(): void
    {
        $pool = $this->pool(1);
        $pool->query('SELECT 1');
        $pool->close();

        self::assertSame(0, $pool->size());
        $this->expectException(PgPoolClosedException::class);
        $pool->query('SELECT 1');
    }

    public function testUsableFromManyFibers(): void
    {
        $pool = $this->pool(3);
        $futures = [];
        for ($i = 0; $i < 10; ++$i) {
            $futures[] = $this->loop->async(static fn(): int => $pool->transaction(static function (PgConnection $tx) use ($i): int {
                $value = $tx->query('SELECT $1::int * 2', [$i])->scalar();
                \assert(\is_int($value));

                return $value;
            }));
        }

        self::assertSame(array_map(static fn(int $i): int => $i * 2, range(0, 9)), array_map(static fn(Future $f): mixed => $f->await(), $futures));
        self::assertLessThanOrEqual(3, $pool->size());
    }

    private function pool(int $maxSize, float $waitTimeout = 5.0): PgPool
    {
        return $this->pool = new PgPool($this->loop, $this->config(), $maxSize, $waitTimeout);
    }
}
