<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgConnection;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\PostgresServer;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * A fresh loop per test against the process-wide test PostgreSQL server. A watchdog ends a test
 * that hangs, and any other error that reaches the loop fails the test.
 */
abstract class PostgresTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 15.0;

    protected Loop $loop;
    protected PostgresServer $server;
    /** @var list<\Throwable> */
    protected array $loopErrors = [];
    /** @var list<PgConnection> */
    private array $opened = [];
    private int $watchdog;

    protected function setUp(): void
    {
        $this->server = PostgresServer::shared();
        $this->loop = new Loop();
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            if (str_starts_with($e->getMessage(), 'Watchdog')) {
                throw $e;
            }
            $this->loopErrors[] = $e;
        });
        $this->watchdog = $this->loop->delay(self::WATCHDOG_SECONDS, static function (): never {
            throw new \RuntimeException('Watchdog: the test did not finish within ' . self::WATCHDOG_SECONDS . ' s.');
        });
        $this->loop->unreference($this->watchdog);
    }

    protected function tearDown(): void
    {
        foreach ($this->opened as $connection) {
            $connection->close();
        }
        $this->loop->cancel($this->watchdog);
        self::assertSame([], array_map(static fn(\Throwable $e): string => $e::class . ': ' . $e->getMessage(), $this->loopErrors), 'no error reached the loop');
    }

    protected function config(?float $queryTimeout = null): PgConfig
    {
        return $this->server->config(queryTimeout: $queryTimeout);
    }

    protected function connect(?float $queryTimeout = null): PgConnection
    {
        $connection = PgConnection::connect($this->loop, $this->config($queryTimeout));
        $this->opened[] = $connection;

        return $connection;
    }

    /**
     * Runs a statement on a blocking side connection (setup and checks only).
     *
     * @return list<array<string, string|null>>
     */
    protected function admin(string $sql): array
    {
        $link = $this->server->adminLink();
        try {
            $result = pg_query($link, $sql);
            self::assertNotFalse($result, pg_last_error($link));

            /** @var list<array<string, string|null>> */
            return pg_fetch_all($result, \PGSQL_ASSOC);
        } finally {
            pg_close($link);
        }
    }
}
