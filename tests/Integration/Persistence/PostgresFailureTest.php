<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Postgres\Exception\InvalidPgConfigException;
use Nexus\Postgres\PgConfig;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * The PostgreSQL store when the server goes away: the write fails with StoreUnavailableException,
 * nothing acknowledged is lost, and the next write opens a new connection.
 */
final class PostgresFailureTest extends TestCase
{
    private Loop $loop;

    protected function setUp(): void
    {
        PersistenceDatabase::reset();
        $this->loop = new Loop();
    }

    public function testAfterTheServerEndedItsConnectionsTheStoreReconnectsByItself(): void
    {
        $store = new PostgresStore($this->loop, PersistenceDatabase::config());
        self::assertSame([null], $store->writeEvents([self::write(1)])->await(10.0));

        $admin = PersistenceDatabase::adminLink();
        pg_query($admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" . PersistenceDatabase::NAME . "' AND pid <> pg_backend_pid()");

        // Whether the client notices before the next write depends on timing: either that write
        // fails (once) with StoreUnavailableException, or it goes out on a new connection.
        $failures = 0;
        while (true) {
            try {
                self::assertSame([null], $store->writeEvents([self::write(2)])->await(10.0));
                break;
            } catch (StoreUnavailableException $e) {
                self::assertStringContainsString('The PostgreSQL store at postgres://postgres@127.0.0.1', $e->getMessage());
                self::assertSame(1, ++$failures, 'only the write on the ended connection fails: ' . $e->getMessage());
            }
        }
        $events = null;
        for ($attempt = 1; $events === null; ++$attempt) {
            try {
                $events = $store->readEvents('x', 1, 10, 10)->await(10.0);
            } catch (StoreUnavailableException $e) {
                self::assertSame(1, $attempt, 'only the read on an ended pooled connection fails: ' . $e->getMessage());
            }
        }
        self::assertCount(2, $events);
        $store->close();
    }

    public function testAWriterThatCommitsWhileTheBatchWaitsForTheLockMakesItsWriteRefusedNotTheBatch(): void
    {
        $store = new PostgresStore($this->loop, PersistenceDatabase::config());
        self::assertSame([null], $store->writeEvents([self::write(1)])->await(10.0));
        $other = PersistenceDatabase::adminLink();
        // Another writer holds the offset lock and has just written x#2 (not committed yet).
        pg_query($other, 'BEGIN');
        pg_query($other, 'UPDATE nexus_journal_ordering SET last_offset = last_offset + 1 WHERE id = 1');
        pg_query($other, "INSERT INTO nexus_journal (ordering, persistence_id, sequence_nr, writer_epoch, event_name, event_version, payload_format, payload, tags, written_at) SELECT last_offset, 'x', 2, 9, 'e', 1, 'json', '\"other\"', '', 0 FROM nexus_journal_ordering WHERE id = 1");

        $batch = $store->writeEvents([self::write(2), new AtomicWrite('y', 1, 1, [new Payload('e', 1, PayloadFormat::Json, '1')])]);
        $deadline = microtime(true) + 10.0;
        while (!self::waitingForLock() && microtime(true) < $deadline) {
            $this->loop->tick(false);
        }
        self::assertTrue(self::waitingForLock(), 'the batch waits for the offset lock');
        pg_query($other, 'COMMIT');

        $results = $batch->await(10.0);
        self::assertInstanceOf(ConcurrentWriteException::class, $results[0], 'x#2 was taken meanwhile');
        self::assertNull($results[1], 'the other write of the batch went in');
        self::assertSame(['1', '"other"'], array_map(static fn($e): string => $e->data, $store->readEvents('x', 1, 10, 10)->await(10.0)));
        self::assertCount(1, $store->readEvents('y', 1, 10, 10)->await(10.0));
        $store->close();
    }

    public function testAServerThatIsNotThereFailsWithStoreUnavailable(): void
    {
        $store = new PostgresStore($this->loop, new PgConfig(port: self::closedPort(), connectTimeout: 2.0));

        try {
            $store->readEvents('x', 1, 10, 10)->await(10.0);
            self::fail('Reading from a server that is not there must fail.');
        } catch (StoreUnavailableException $e) {
            self::assertStringContainsString('check that the server is up and reachable', $e->getMessage());
        }
        $store->close();
    }

    public function testUrlsAreReadIntoAConfig(): void
    {
        $config = PostgresUrl::parse('postgres://app:s%40cret@db.example:5433/orders');
        self::assertSame(['db.example', 5433, 'orders', 'app', 's@cret'], [$config->host, $config->port, $config->database, $config->user, $config->password]);
        self::assertSame('postgres://app@db.example:5433/orders', PostgresUrl::redact($config));
        $defaults = PostgresUrl::parse('postgresql://127.0.0.1');
        self::assertSame([5432, 'postgres', 'postgres', ''], [$defaults->port, $defaults->user, $defaults->database, $defaults->password]);

        foreach (['mysql://a@b/c', 'postgres:///db', 'postgres://h/db?sslmode=require'] as $bad) {
            try {
                PostgresUrl::parse($bad);
                self::fail("{$bad} is not a URL the store takes.");
            } catch (InvalidPgConfigException $e) {
                self::assertStringContainsString('postgres://USER:PASS@HOST:PORT/DB', $e->getMessage());
            }
        }
    }

    private static function waitingForLock(): bool
    {
        $result = pg_query(PersistenceDatabase::adminLink(), "SELECT count(*) FROM pg_stat_activity WHERE datname = '" . PersistenceDatabase::NAME . "' AND wait_event_type = 'Lock'");

        return $result !== false && pg_fetch_result($result, 0, 0) === '1';
    }

    private static function write(int $seq): AtomicWrite
    {
        return new AtomicWrite('x', $seq, 1, [new Payload('e', 1, PayloadFormat::Json, (string) $seq)]);
    }

    private static function closedPort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($socket);
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);

        return (int) substr($name, (int) strrpos($name, ':') + 1);
    }
}
