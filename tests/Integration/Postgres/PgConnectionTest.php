<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\Exception\PgConnectTimeoutException;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\Exception\PgQueryTimeoutException;
use Nexus\Postgres\Exception\PgServerUnavailableException;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgConnection;
use Nexus\Postgres\PgNotification;
use Nexus\Postgres\PgResult;
use Nexus\Runtime\Exception\TransientException;

final class PgConnectionTest extends PostgresTestCase
{
    public function testAWrongPortFailsFastWithAConnectionException(): void
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($socket);
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);
        $port = (int) substr($name, (int) strrpos($name, ':') + 1);

        try {
            PgConnection::connect($this->loop, new PgConfig(port: $port, connectTimeout: 60.0));
            self::fail('connecting to a closed port must fail');
        } catch (PgConnectionException $e) {
            self::assertStringContainsString((string) $port, $e->getMessage());
            self::assertNotInstanceOf(PgConnectTimeoutException::class, $e, 'refused at once, not after the connect timeout');
        }
    }

    public function testAnUnknownDatabaseIsAConnectionException(): void
    {
        $this->expectException(PgConnectionException::class);
        $this->expectExceptionMessage('no_such_db');
        PgConnection::connect($this->loop, $this->config()->withDatabase('no_such_db'));
    }

    public function testParametersAndTypedResults(): void
    {
        $db = $this->connect();
        $result = $db->query(
            'SELECT $1::int4 AS i, $2::int8 AS big, $3::float8 AS f, $4::bool AS yes, $5::bool AS no, $6::text AS t, $7::text AS nothing, $8::jsonb AS j, 12.50::numeric AS n, 2::int2 AS small',
            [7, \PHP_INT_MAX, 0.5, true, false, "it's", null, ['a' => 1, 'b' => [true]]],
        );

        self::assertSame([[
            'i' => 7, 'big' => \PHP_INT_MAX, 'f' => 0.5, 'yes' => true, 'no' => false, 't' => "it's",
            'nothing' => null, 'j' => ['a' => 1, 'b' => [true]], 'n' => '12.50', 'small' => 2,
        ]], $result->rows());
        self::assertCount(1, $result);
        self::assertSame(7, $result->scalar());
    }

    public function testResultHelpers(): void
    {
        $db = $this->connect();
        $result = $db->query('SELECT g AS n, g * 2 AS double FROM generate_series(1, 3) g');

        self::assertSame(['n' => 1, 'double' => 2], $result->first());
        self::assertSame([2, 4, 6], $result->column('double'));
        self::assertSame([1, 2, 3], $result->column());
        self::assertSame(3, $result->count());
        self::assertSame(3, iterator_count($result));
        $empty = $db->query('SELECT 1 WHERE false');
        self::assertNull($empty->first());
        self::assertNull($empty->scalar());
        self::assertSame([], $empty->rows());
    }

    public function testRawRowsAreTheServersTextInColumnOrderAndRowsStillConvertAfterwards(): void
    {
        $db = $this->connect();
        $result = $db->query('SELECT g AS n, g::text AS t, NULL::int4 AS nothing, (g > 1) AS more FROM generate_series(1, 2) g');

        self::assertSame([['1', '1', null, 'f'], ['2', '2', null, 't']], $result->rawRows());
        self::assertSame([['1', '1', null, 'f'], ['2', '2', null, 't']], $result->rawRows(), 'a second call gives the same rows');
        self::assertSame([['n' => 1, 't' => '1', 'nothing' => null, 'more' => false], ['n' => 2, 't' => '2', 'nothing' => null, 'more' => true]], $result->rows());
        self::assertSame([], $db->query('SELECT 1 WHERE false')->rawRows());

        $converted = $db->query('SELECT 1 AS n');
        self::assertSame(1, $converted->scalar());
        $this->expectException(\LogicException::class);
        $converted->rawRows();
    }

    public function testAffectedRowsAndMultipleStatements(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS conn_items; CREATE TABLE conn_items (id serial PRIMARY KEY, name text UNIQUE NOT NULL)');
        $insert = $db->query("INSERT INTO conn_items (name) VALUES ('a'), ('b'), ('c')");
        self::assertSame(3, $insert->affectedRows());
        self::assertSame(2, $db->query('UPDATE conn_items SET name = name || $1 WHERE id > 1', ['!'])->affectedRows());
        self::assertSame(['a', 'b!', 'c!'], $db->query('SELECT name FROM conn_items ORDER BY id')->column());
    }

    public function testConcurrentQueriesOnOneConnectionRunInOrder(): void
    {
        $db = $this->connect();
        $futures = [];
        for ($i = 0; $i < 20; ++$i) {
            $futures[] = $db->queryAsync('SELECT $1::int AS n, clock_timestamp() AS at', [$i]);
        }
        $rows = array_map(static fn($f): array => $f->await()->first() ?? [], $futures);

        self::assertSame(range(0, 19), array_column($rows, 'n'));
        $times = array_column($rows, 'at');
        $sorted = $times;
        sort($sorted);
        self::assertSame($sorted, $times);
    }

    public function testPreparedStatements(): void
    {
        $db = $this->connect();
        $statement = $db->prepare('SELECT $1::int + $2::int AS sum, $3::text AS label');

        self::assertSame(['sum' => 3, 'label' => 'x'], $statement->execute([1, 2, 'x'])->first());
        self::assertSame(['sum' => 30, 'label' => null], $statement->execute([10, 20, null])->first());
        self::assertSame(2, $db->query('SELECT $1::int', [2])->scalar());
        $statement->close();

        try {
            $statement->execute([1, 2, 'x']);
            self::fail('a closed statement cannot run');
        } catch (PgQueryException $e) {
            self::assertSame('26000', $e->sqlState);
        }
    }

    public function testTransactionCommits(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS tx_commit; CREATE TABLE tx_commit (v int)');

        $returned = $db->transaction(static function (PgConnection $tx): string {
            $tx->query('INSERT INTO tx_commit VALUES (1), (2)');

            return 'done';
        });

        self::assertSame('done', $returned);
        self::assertSame(\PGSQL_TRANSACTION_IDLE, $db->transactionStatus());
        self::assertSame([['count' => '2']], $this->admin('SELECT count(*) FROM tx_commit'));
    }

    public function testTransactionRollsBackAndRethrows(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS tx_rollback; CREATE TABLE tx_rollback (v int)');

        $thrown = null;
        try {
            $db->transaction(static function (PgConnection $tx): void {
                $tx->query('INSERT INTO tx_rollback VALUES (1)');
                if ($tx->pid() > 0) {
                    throw new \DomainException('changed my mind');
                }
            });
        } catch (\DomainException $e) {
            $thrown = $e;
        }

        self::assertSame('changed my mind', $thrown?->getMessage(), 'the exception comes through');

        self::assertSame(\PGSQL_TRANSACTION_IDLE, $db->transactionStatus());
        self::assertSame(0, $db->query('SELECT count(*)::int FROM tx_rollback')->scalar());
    }

    public function testATransactionWhoseStatementFailedQuietlyIsNotCommitted(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS tx_quiet; CREATE TABLE tx_quiet (v int)');

        try {
            $db->transaction(static function (PgConnection $tx): void {
                $tx->query('INSERT INTO tx_quiet VALUES (1)');
                try {
                    $tx->query('SELECT 1/0');
                } catch (PgQueryException) {
                }
            });
            self::fail('the aborted transaction must be reported');
        } catch (PgQueryException $e) {
            self::assertSame('25P02', $e->sqlState);
        }
        self::assertSame(0, $db->query('SELECT count(*)::int FROM tx_quiet')->scalar());
    }

    public function testErrorsThatPassAreTransientAndOthersAreNot(): void
    {
        $db = $this->connect();
        // The server raises each SQLSTATE itself; a handler letting such an error escape answers 503.
        foreach (['40001', '40P01', '57P03', '53300', '08006'] as $sqlState) {
            try {
                $db->query("DO \$\$ BEGIN RAISE EXCEPTION 'passing trouble' USING ERRCODE = '{$sqlState}'; END \$\$");
                self::fail("{$sqlState} must be reported");
            } catch (PgQueryException $e) {
                self::assertInstanceOf(PgServerUnavailableException::class, $e, $sqlState);
                self::assertInstanceOf(TransientException::class, $e, $sqlState);
                self::assertSame($sqlState, $e->sqlState);
            }
        }
        try {
            $db->query('SELECT 1/0');
            self::fail('a division by zero must be reported');
        } catch (PgQueryException $e) {
            self::assertSame('22012', $e->sqlState);
            self::assertNotInstanceOf(TransientException::class, $e, 'retrying does not help');
        }
        self::assertSame(1, $db->query('SELECT 1')->scalar(), 'the connection is still usable');
    }

    public function testSqlStateOfAUniqueViolationAndASyntaxError(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS uniq; CREATE TABLE uniq (email text CONSTRAINT uniq_email UNIQUE)');
        $db->query('INSERT INTO uniq VALUES ($1)', ['a@example.org']);

        try {
            $db->query('INSERT INTO uniq VALUES ($1)', ['a@example.org']);
            self::fail('a duplicate must be refused');
        } catch (PgQueryException $e) {
            self::assertSame('23505', $e->sqlState);
            self::assertSame('uniq_email', $e->constraint);
            self::assertStringContainsString('already exists', (string) $e->detail);
            self::assertStringContainsString('23505', $e->getMessage());
        }

        try {
            $db->query('SELEC 1');
            self::fail('a syntax error must be reported');
        } catch (PgQueryException $e) {
            self::assertSame('42601', $e->sqlState);
            self::assertSame('SELEC 1', $e->sql);
        }

        self::assertSame(1, $db->query('SELECT 1')->scalar(), 'the connection stays usable');
    }

    public function testListenAndNotify(): void
    {
        $listener = $this->connect();
        $sender = $this->connect();
        /** @var list<PgNotification> $received */
        $received = [];
        $listener->listen('Orders', static function (PgNotification $n) use (&$received): void {
            $received[] = $n;
        });

        $sender->notify('Orders', 'first');
        $sender->query("NOTIFY \"Orders\", 'second'");
        $sender->notify('other', 'not for us');
        // By reference: an arrow function would capture the list as it is now, and wait for ever.
        $this->runUntil(static function () use (&$received): bool {
            return \count($received) >= 2;
        });

        self::assertSame(['first', 'second'], array_map(static fn(PgNotification $n): string => $n->payload, $received));
        self::assertSame('Orders', $received[0]->channel);
        self::assertSame($sender->pid(), $received[0]->pid);

        $listener->unlisten('Orders');
        $marker = false;
        $listener->listen('marker', static function () use (&$marker): void {
            $marker = true;
        });
        // Notifications of one session arrive in order: once the marker is there, so would be the other.
        $sender->notify('Orders', 'after unlisten');
        $sender->notify('marker');
        $this->runUntil(static function () use (&$marker): bool {
            return $marker;
        });
        self::assertCount(2, $received);
    }

    public function testQueryTimeoutCancelsTheQueryOnTheServer(): void
    {
        $db = $this->connect(queryTimeout: 0.2);
        $started = $this->loop->now();
        try {
            $db->query('SELECT pg_sleep(60)');
            self::fail('the query must time out');
        } catch (PgQueryTimeoutException $e) {
            self::assertSame('57014', $e->sqlState);
            self::assertStringContainsString('pg_sleep(60)', $e->getMessage());
            self::assertStringContainsString('query timeout of 0.200 s', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.2, $this->loop->now() - $started, 'not before the timeout');

        self::assertSame([], $this->admin("SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' AND state = 'active'"));
        self::assertSame(2, $db->query('SELECT 2')->scalar(), 'the connection stays usable');
    }

    public function testEachStatementGetsTheWholeTimeoutFromItsOwnStart(): void
    {
        $db = $this->connect(queryTimeout: 0.3);
        // The connection's one deadline timer was armed for the first statement; the second
        // starts later and must get its full 0.3 s, and then time out all the same.
        self::assertSame(1, $db->query('SELECT 1 FROM pg_sleep(0.1)')->scalar());
        $started = $this->loop->now();
        try {
            $db->query('SELECT pg_sleep(60)');
            self::fail('the second statement must time out');
        } catch (PgQueryTimeoutException) {
            self::assertGreaterThanOrEqual(0.3, $this->loop->now() - $started);
        }
        self::assertSame(2, $db->query('SELECT 2')->scalar());
    }

    public function testAQueryQueuedBehindATimedOutOneIsNotCancelled(): void
    {
        $db = $this->connect(queryTimeout: 0.2);
        $slow = $db->queryAsync('SELECT pg_sleep(10)');
        $next = $db->queryAsync('SELECT pg_sleep(0.1), 5 AS five');

        self::assertSame(5, $next->await()->first()['five'] ?? null);
        $this->expectException(PgQueryTimeoutException::class);
        $slow->await();
    }

    public function testALargeStatementIsSentWithoutBlocking(): void
    {
        $db = $this->connect();
        $payload = str_repeat('abcdefgh', 1 << 20);
        $result = $db->queryAsync('SELECT length($1::text) AS n', [$payload]);
        $other = $db->queryAsync("SELECT length('" . $payload . "') AS n");

        self::assertSame(8 << 20, $result->await()->scalar());
        self::assertSame(8 << 20, $other->await()->scalar());
    }

    public function testALostConnectionFailsPendingQueriesAndTheNextOnes(): void
    {
        $db = $this->connect();
        $pending = $db->queryAsync('SELECT pg_sleep(60)');
        $this->pollUntil(fn(): bool => $this->admin('SELECT pid FROM pg_stat_activity WHERE pid = ' . $db->pid() . " AND state = 'active'") !== []);
        $this->admin('SELECT pg_terminate_backend(' . $db->pid() . ')');

        try {
            $pending->await();
            self::fail('the query must fail when the server ends the connection');
        } catch (PgConnectionException|PgQueryException $e) {
            self::assertNotSame('', $e->getMessage());
        }
        $this->runUntil(static fn(): bool => $db->isClosed() || $db->isIdle());
        try {
            $db->query('SELECT 1');
            $db->query('SELECT 1');
            self::fail('a terminated connection cannot run queries');
        } catch (PgConnectionException) {
            self::assertTrue($db->isClosed());
        }
    }

    public function testQueryAsyncReturnsAFuture(): void
    {
        $db = $this->connect();
        $future = $db->queryAsync('SELECT 41 + 1 AS answer');

        self::assertFalse($future->isSettled());
        self::assertInstanceOf(PgResult::class, $future->await());
        self::assertSame(42, $future->await()->scalar());
    }
}
