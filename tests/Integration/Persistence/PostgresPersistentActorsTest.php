<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Persistence\Store\Store;

final class PostgresPersistentActorsTest extends PersistentActorsTestCase
{
    protected function setUp(): void
    {
        PersistenceDatabase::reset();
    }

    protected function createStore(ActorSystem $system): Store
    {
        return new PostgresStore($system->loop, PersistenceDatabase::config());
    }

    protected function storeSpec(): string
    {
        $config = PersistenceDatabase::config();

        return PostgresUrl::redact($config);
    }
}
