<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Persistence\Store\Sqlite\SqliteConnection;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Persistence\Store\Store;

final class SqliteStoreTest extends StoreConformanceTestCase
{
    private string $directory;

    protected function setUp(): void
    {
        $this->directory = TempDirectory::create('nexus-sqlite-');
        parent::setUp();
    }

    protected function tearDown(): void
    {
        parent::tearDown();
        TempDirectory::remove($this->directory);
    }

    protected function createStore(): Store
    {
        return new SqliteStore($this->loop, $this->directory . '/nexus.sqlite');
    }

    protected function projectionWrite(mixed $transaction, string $key, string $value): void
    {
        self::assertInstanceOf(\PDO::class, $transaction);
        $transaction->exec('CREATE TABLE IF NOT EXISTS projected (k TEXT PRIMARY KEY, v TEXT)');
        $transaction->prepare('INSERT OR REPLACE INTO projected (k, v) VALUES (?, ?)')->execute([$key, $value]);
    }

    protected function projectionRead(string $key): ?string
    {
        $pdo = new \PDO('sqlite:' . $this->directory . '/nexus.sqlite');
        if (SqliteConnection::value($pdo, "SELECT name FROM sqlite_master WHERE name = 'projected'") === false) {
            return null;
        }
        $statement = $pdo->prepare('SELECT v FROM projected WHERE k = ?');
        $statement->execute([$key]);
        $value = $statement->fetchColumn();

        return \is_string($value) ? $value : null;
    }
}
