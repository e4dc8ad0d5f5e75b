<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Store;
use Nexus\Postgres\PgConnection;

final class PostgresStoreTest extends StoreConformanceTestCase
{
    protected function setUp(): void
    {
        PersistenceDatabase::reset();
        parent::setUp();
    }

    protected function createStore(): Store
    {
        return new PostgresStore($this->loop, PersistenceDatabase::config());
    }

    protected function projectionWrite(mixed $transaction, string $key, string $value): void
    {
        self::assertInstanceOf(PgConnection::class, $transaction);
        $transaction->query('CREATE TABLE IF NOT EXISTS projected (k TEXT PRIMARY KEY, v TEXT)');
        $transaction->query('INSERT INTO projected (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v', [$key, $value]);
    }

    protected function projectionRead(string $key): ?string
    {
        $link = PersistenceDatabase::adminLink();
        $exists = pg_query($link, "SELECT to_regclass('projected') IS NOT NULL");
        if ($exists === false || pg_fetch_result($exists, 0, 0) !== 't') {
            return null;
        }
        $result = pg_query_params($link, 'SELECT v FROM projected WHERE k = $1', [$key]);
        $value = $result === false || pg_num_rows($result) === 0 ? false : pg_fetch_result($result, 0, 0);

        return \is_string($value) ? $value : null;
    }
}
