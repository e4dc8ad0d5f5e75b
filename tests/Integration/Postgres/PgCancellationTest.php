<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Postgres\Exception\PgConnectTimeoutException;
use Nexus\Postgres\Exception\PgPoolTimeoutException;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgConnection;
use Nexus\Postgres\PgPool;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;

/**
 * A cancellation reaches the server: a running statement is cancelled there, a queued one never
 * runs, a pool slot is given back, and the connection stays usable.
 */
final class PgCancellationTest extends PostgresTestCase
{
    /** Long enough that a statement still running at the end means the cancel never reached it. */
    private const LONG_SLEEP = 'SELECT pg_sleep(60)';

    public function testACancelledRunningStatementIsCancelledOnTheServerAndTheConnectionStaysUsable(): void
    {
        $db = $this->connect();
        $source = new DeferredCancellation($this->loop);
        $sleep = $db->queryAsync(self::LONG_SLEEP, [], $source->cancellation());
        $this->pollUntil(fn(): bool => $this->activeSleeps() === 1);

        $source->cancel(new \RuntimeException('the client went away'));

        self::assertTrue($sleep->isRejected(), 'the caller learns at once');
        try {
            $sleep->await();
            self::fail('cancelled');
        } catch (CancelledException $e) {
            self::assertStringContainsString('the client went away', $e->getMessage());
        }
        self::assertSame(2, $db->queryAsync('SELECT 2')->await(timeout: 10.0)->scalar(), 'the connection is usable: the sleep ended on the server');
        self::assertSame(0, $this->activeSleeps());
    }

    public function testACancelledQueuedStatementNeverRuns(): void
    {
        $db = $this->connect();
        $db->query('DROP TABLE IF EXISTS cancelled_insert; CREATE TABLE cancelled_insert (v int)');
        $running = $db->queryAsync('SELECT pg_sleep(0.05)');
        $source = new DeferredCancellation($this->loop);
        $queued = $db->queryAsync('INSERT INTO cancelled_insert VALUES (1)', [], $source->cancellation());
        $after = $db->queryAsync('INSERT INTO cancelled_insert VALUES (2)');
        $source->cancel();

        self::assertTrue($queued->isRejected());
        $queued->ignore();
        $running->await();
        $after->await();
        self::assertSame([2], $db->query('SELECT v FROM cancelled_insert')->column());
    }

    public function testAPoolQueryCancelledWhileRunningGivesItsConnectionBackClean(): void
    {
        $pool = new PgPool($this->loop, $this->config(), 1);
        try {
            $source = new DeferredCancellation($this->loop);
            $sleep = $pool->queryAsync(self::LONG_SLEEP, [], $source->cancellation());
            $this->pollUntil(fn(): bool => $this->activeSleeps() === 1);
            $source->cancel();
            self::assertTrue($sleep->isRejected());
            $sleep->ignore();

            self::assertSame(3, $pool->queryAsync('SELECT 3')->await(timeout: 10.0)->scalar());
            self::assertSame(1, $pool->size());
            self::assertSame(0, $this->activeSleeps());
        } finally {
            $pool->close();
        }
    }

    public function testAPoolQueryCancelledWhileWaitingForAConnectionLeavesTheQueue(): void
    {
        $pool = new PgPool($this->loop, $this->config(), 1, waitTimeout: 30.0);
        try {
            $busy = $pool->queryAsync('SELECT pg_sleep(0.2)');
            $source = new DeferredCancellation($this->loop);
            $waiting = $pool->queryAsync('SELECT 1', [], $source->cancellation());
            self::assertSame(2, $pool->waitingCount());
            $source->cancel();

            self::assertTrue($waiting->isRejected());
            $waiting->ignore();
            self::assertSame(1, $pool->waitingCount(), 'only the first query waits, for the connection being opened');
            $busy->await();
            self::assertSame(1, $pool->idleCount());
        } finally {
            $pool->close();
        }
    }

    public function testTheTimeLimitOfTheRunningTaskCancelsAPoolQueryOnTheServer(): void
    {
        $pool = new PgPool($this->loop, $this->config(), 1);
        try {
            $source = new DeferredCancellation($this->loop);
            $scheduler = $this->loop->scheduler();
            // An HTTP handler runs under its time limit like this.
            $handler = $this->loop->async(static function () use ($pool, $source, $scheduler): string {
                $scheduler->setCancellation($source->cancellation());
                try {
                    $pool->query(self::LONG_SLEEP);

                    return 'finished';
                } catch (CancelledException) {
                    return 'cancelled';
                } finally {
                    $scheduler->setCancellation(null);
                }
            });
            $this->pollUntil(fn(): bool => $this->activeSleeps() === 1);
            $source->cancel();

            self::assertSame('cancelled', $handler->await());
            self::assertSame(4, $pool->queryAsync('SELECT 4')->await(timeout: 10.0)->scalar());
            self::assertSame(0, $this->activeSleeps());
        } finally {
            $pool->close();
        }
    }

    public function testAPoolWaitTimeoutIsTypedAndNamesThePool(): void
    {
        $pool = new PgPool($this->loop, $this->config(), 1, waitTimeout: 0.05);
        try {
            $source = new DeferredCancellation($this->loop);
            $busy = $pool->queryAsync(self::LONG_SLEEP, [], $source->cancellation());
            try {
                $pool->query('SELECT 1');
                self::fail('the only connection is busy');
            } catch (PgPoolTimeoutException $e) {
                self::assertStringContainsString('PostgreSQL pool for 127.0.0.1:' . $this->server->port, $e->getMessage());
                self::assertStringContainsString('within 0.050 s', $e->getMessage());
            }
            $source->cancel();
            $busy->ignore();
            $this->pollUntil(fn(): bool => $this->activeSleeps() === 0);
        } finally {
            $pool->close();
        }
    }

    public function testAConnectThatGetsNoAnswerFailsWithTheConnectTimeout(): void
    {
        // A socket that accepts TCP connections (the kernel's backlog) but never answers.
        $silent = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($silent);
        $name = (string) stream_socket_get_name($silent, false);
        $port = (int) substr($name, (int) strrpos($name, ':') + 1);
        try {
            PgConnection::connect($this->loop, new PgConfig(port: $port, connectTimeout: 0.2));
            self::fail('nobody answers');
        } catch (PgConnectTimeoutException $e) {
            self::assertStringContainsString('connect timeout of 0.200 s', $e->getMessage());
        } finally {
            fclose($silent);
        }
    }

    private function activeSleeps(): int
    {
        return \count($this->admin("SELECT pid FROM pg_stat_activity WHERE query = '" . self::LONG_SLEEP . "' AND state = 'active'"));
    }
}
