<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Persistence\Store\Store;
use Nexus\Postgres\PgConnection;

final class PostgresReadSideTest extends ReadSideTestCase
{
    protected function setUp(): void
    {
        PersistenceDatabase::reset();
        pg_query(PersistenceDatabase::adminLink(), 'DROP TABLE IF EXISTS totals');
        parent::setUp();
    }

    protected function createStore(ActorSystem $system): Store
    {
        return new PostgresStore($system->loop, PersistenceDatabase::config());
    }

    protected function storeSpec(): string
    {
        return PostgresUrl::redact(PersistenceDatabase::config());
    }

    protected function project(mixed $transaction, string $id, int $amount): void
    {
        \assert($transaction instanceof PgConnection);
        $transaction->query('CREATE TABLE IF NOT EXISTS totals (id TEXT PRIMARY KEY, total BIGINT NOT NULL)');
        $transaction->query('INSERT INTO totals (id, total) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET total = totals.total + EXCLUDED.total', [$id, $amount]);
    }

    protected function projected(): array
    {
        $result = pg_query(PersistenceDatabase::adminLink(), 'SELECT id, total FROM totals ORDER BY id');
        self::assertNotFalse($result);
        $totals = [];
        foreach (pg_fetch_all($result) as $row) {
            \assert(\is_string($row['id']) && is_numeric($row['total']));
            $totals[$row['id']] = (int) $row['total'];
        }

        return $totals;
    }
}
