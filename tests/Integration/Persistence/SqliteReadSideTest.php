<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Persistence\Store\Store;

final class SqliteReadSideTest extends ReadSideTestCase
{
    private string $directory;

    protected function setUp(): void
    {
        $this->directory = TempDirectory::create('nexus-sqlite-read-');
        parent::setUp();
    }

    protected function tearDown(): void
    {
        parent::tearDown();
        TempDirectory::remove($this->directory);
    }

    protected function createStore(ActorSystem $system): Store
    {
        return new SqliteStore($system->loop, $this->directory . '/nexus.sqlite');
    }

    protected function storeSpec(): string
    {
        return 'sqlite:' . $this->directory . '/nexus.sqlite';
    }

    protected function project(mixed $transaction, string $id, int $amount): void
    {
        \assert($transaction instanceof \PDO);
        $transaction->exec('CREATE TABLE IF NOT EXISTS totals (id TEXT PRIMARY KEY, total INTEGER NOT NULL)');
        $transaction->prepare('INSERT INTO totals (id, total) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET total = total + excluded.total')->execute([$id, $amount]);
    }

    protected function projected(): array
    {
        $pdo = new \PDO('sqlite:' . $this->directory . '/nexus.sqlite');
        $totals = [];
        $rows = $pdo->query('SELECT id, total FROM totals ORDER BY id');
        self::assertNotFalse($rows);
        /** @var list<array{string, int}> $all */
        $all = $rows->fetchAll(\PDO::FETCH_NUM);
        foreach ($all as [$id, $total]) {
            $totals[$id] = $total;
        }

        return $totals;
    }
}
