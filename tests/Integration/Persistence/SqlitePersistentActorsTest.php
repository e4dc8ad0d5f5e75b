<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Persistence\Store\Store;

final class SqlitePersistentActorsTest extends PersistentActorsTestCase
{
    private string $directory;

    protected function setUp(): void
    {
        $this->directory = TempDirectory::create('nexus-sqlite-actors-');
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
}
