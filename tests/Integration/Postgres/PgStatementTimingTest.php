<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Pool\PoolDirectory;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\PgConnection;
use Nexus\Postgres\PgPool;
use Nexus\Tests\Integration\Persistence\PersistenceDatabase;

/**
 * Every statement a pooled connection sends counts once in the pool's operation durations
 * (db.client.operation.duration), however the connection was obtained: query(), withConnection(),
 * transaction() (BEGIN and COMMIT are statements too), acquireAsync(), and a connection opened
 * outside the pool and handed to measure() (the store's journal writer).
 */
final class PgStatementTimingTest extends PostgresTestCase
{
    public function testEveryStatementOfAPooledConnectionCountsOnce(): void
    {
        $name = 'timing-' . bin2hex(random_bytes(4));
        $pool = new PgPool($this->loop, $this->config(), maxSize: 1, name: $name);
        $durations = PoolDirectory::instruments('postgresql', $name)->durations;
        self::assertSame(0, $durations->count());

        self::assertSame(1, $pool->query('SELECT 1')->scalar());
        self::assertSame(1, $durations->count(), 'query()');

        $pool->withConnection(static function (PgConnection $connection): void {
            $connection->query('SELECT 1');
            $connection->query('SELECT $1::int', [2]);
            $statement = $connection->prepare('SELECT $1::int + 1');  // one statement (Parse)
            self::assertSame(4, $statement->execute([3])->scalar());   // one more (Execute)
        });
        self::assertSame(5, $durations->count(), 'withConnection(): four statements');

        $pool->transaction(static function (PgConnection $connection): void {
            $connection->query('SELECT 1');
            $connection->query('SELECT 2');
        });
        self::assertSame(9, $durations->count(), 'transaction(): BEGIN, two statements, COMMIT');

        $connection = $pool->acquireAsync()->await();
        $connection->query('SELECT 1');
        try {
            $connection->query('SELECT no_such_column FROM no_such_table');
            self::fail('the statement should fail');
        } catch (PgQueryException) {
            // a failed statement is timed too
        }
        $pool->release($connection);
        self::assertSame(11, $durations->count(), 'acquireAsync(): one statement that succeeded, one that failed');

        // A statement refused before it is sent (a NUL byte) never reached the server: not timed.
        try {
            $pool->query("SELECT '\0'");
        } catch (\Throwable) {
        }
        self::assertSame(11, $durations->count());
        self::assertGreaterThan(0.0, $durations->sum());
        $pool->close();
    }

    public function testTheStoresJournalWritesCountUnderItsPoolName(): void
    {
        PersistenceDatabase::reset();
        $store = new PostgresStore($this->loop, PersistenceDatabase::config());
        $durations = PoolDirectory::instruments('postgresql', 'nexus-store')->durations;
        $id = 'timed-' . bin2hex(random_bytes(4));
        // The first write opens the writer, creates the schema and prepares the batch statement.
        self::assertSame([null], $store->writeEvents([new AtomicWrite($id, 1, 1, [new Payload('e', 1, PayloadFormat::Json, '1')])])->await(10.0));
        $before = $durations->count();
        for ($sequenceNr = 2; $sequenceNr <= 6; ++$sequenceNr) {
            self::assertSame([null], $store->writeEvents([new AtomicWrite($id, $sequenceNr, 1, [new Payload('e', 1, PayloadFormat::Json, (string) $sequenceNr)])])->await(10.0));
        }
        self::assertSame($before + 5, $durations->count(), 'one statement per journal write on the idle writer');
        $store->close();
    }
}
