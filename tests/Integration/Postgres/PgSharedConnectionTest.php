<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\PgConnection;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\DeferredCancellation;

/**
 * One PgConnection shared by several fibers: a transaction() belongs to the fiber that runs it,
 * and other fibers' statements wait until it ends instead of running inside it.
 */
final class PgSharedConnectionTest extends PostgresTestCase
{
    public function testAnotherFibersStatementDoesNotRunInsideATransaction(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS shared_tx; CREATE TABLE shared_tx (v int)');
        /** @var Deferred<null> $proceed */
        $proceed = new Deferred($this->loop);
        $insideTransaction = false;
        $seenInside = null;

        $transaction = $this->loop->async(static function () use ($db, $proceed, &$insideTransaction, &$seenInside): string {
            try {
                $db->transaction(static function (PgConnection $tx) use ($proceed, &$insideTransaction, &$seenInside): void {
                    $tx->query('INSERT INTO shared_tx VALUES (1)');
                    $insideTransaction = true;
                    $proceed->future()->await();
                    $seenInside = $tx->query('SELECT array_agg(v ORDER BY v)::text FROM shared_tx')->scalar();
                    $tx->query('SELECT 1 / 0'); // fails: the transaction rolls back
                });
            } catch (PgQueryException) {
                return 'rolled back';
            }

            return 'committed';
        });
        $this->runUntil(static function () use (&$insideTransaction): bool {
            return $insideTransaction;
        });
        // Another fiber writes while the transaction is open, and waits for the transaction to end.
        $submitted = false;
        $other = $this->loop->async(static function () use ($db, &$submitted): mixed {
            $submitted = true;

            return $db->query('INSERT INTO shared_tx VALUES (2) RETURNING v')->scalar();
        });
        $this->runUntil(static function () use (&$submitted): bool {
            return $submitted;
        });
        self::assertFalse($other->isSettled(), 'it waits for the transaction to end');

        $proceed->resolve(null);

        self::assertSame('rolled back', $transaction->await());
        self::assertSame('{1}', $seenInside, 'the transaction saw only its own row');
        self::assertSame(2, $other->await());
        self::assertSame([2], $db->query('SELECT v FROM shared_tx ORDER BY v')->column(), 'the other fiber\'s row survived the rollback');
        self::assertSame(\PGSQL_TRANSACTION_IDLE, $db->transactionStatus());
        self::assertTrue($db->isIdle());
    }

    public function testTransactionsOfSeveralFibersRunOneAfterAnother(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS shared_tx2; CREATE TABLE shared_tx2 (fiber int, step int)');
        $futures = [];
        for ($fiber = 1; $fiber <= 3; ++$fiber) {
            $futures[] = $this->loop->async(static fn(): mixed => $db->transaction(static function (PgConnection $tx) use ($fiber): int {
                $tx->query('INSERT INTO shared_tx2 VALUES ($1, 1)', [$fiber]);
                $tx->query('SELECT pg_sleep(0.01)');
                $tx->query('INSERT INTO shared_tx2 VALUES ($1, 2)', [$fiber]);

                return $fiber;
            }));
            // A plain statement between the transactions runs between them, not inside one.
            $futures[] = $db->queryAsync('INSERT INTO shared_tx2 VALUES (0, $1)', [$fiber]);
        }
        foreach ($futures as $future) {
            $future->await();
        }

        $rows = $db->query('SELECT fiber, step FROM shared_tx2 ORDER BY ctid')->rows();
        $fibers = array_map(static fn(array $row): mixed => $row['fiber'], $rows);
        // Each transaction's two rows are adjacent: nothing ran inside another's transaction.
        foreach ([1, 2, 3] as $fiber) {
            $at = array_search($fiber, $fibers, true);
            self::assertIsInt($at);
            self::assertSame($fiber, $fibers[$at + 1] ?? null, 'transaction ' . $fiber . ' was interleaved: ' . json_encode($rows));
        }
        self::assertCount(9, $rows);
        self::assertTrue($db->isIdle());
    }

    public function testAStatementHeldBehindATransactionCanBeCancelled(): void
    {
        $db = $this->connect();
        /** @var Deferred<null> $proceed */
        $proceed = new Deferred($this->loop);
        $transaction = $this->loop->async(static fn(): mixed => $db->transaction(static function () use ($proceed): int {
            $proceed->future()->await();

            return 1;
        }));
        $this->runUntil(static fn(): bool => $db->transactionStatus() === \PGSQL_TRANSACTION_INTRANS);
        $source = new DeferredCancellation($this->loop);
        $held = $db->queryAsync('SELECT 2', [], $source->cancellation());
        $source->cancel();

        self::assertTrue($held->isRejected());
        $held->ignore();
        $proceed->resolve(null);
        self::assertSame(1, $transaction->await());
        self::assertTrue($db->isIdle());
        self::assertSame(3, $db->query('SELECT 3')->scalar());
    }
}
