<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Persistence\Store\Store;

final class InMemoryStoreTest extends StoreConformanceTestCase
{
    /** @var array<string, string> */
    private array $projected = [];

    protected function createStore(): Store
    {
        return new InMemoryStore($this->loop);
    }

    protected function projectionWrite(mixed $transaction, string $key, string $value): void
    {
        self::assertInstanceOf(InMemoryStore::class, $transaction);
        $this->projected[$key] = $value;
    }

    protected function projectionRead(string $key): ?string
    {
        return $this->projected[$key] ?? null;
    }

    protected function storeIsTransactional(): bool
    {
        return false;
    }

    public function testAnUnavailableStoreFailsEveryOperationUntilItIsAvailableAgain(): void
    {
        $store = new InMemoryStore($this->loop);
        $store->makeUnavailable('the disk is gone');
        try {
            $store->writeEvents([new AtomicWrite('a', 1, 1, [self::payload('e', '1')])])->await();
            self::fail('An unavailable store refuses writes.');
        } catch (StoreUnavailableException $e) {
            self::assertSame('the disk is gone', $e->getMessage());
        }
        $store->makeAvailable();

        self::assertSame([null], $store->writeEvents([new AtomicWrite('a', 1, 1, [self::payload('e', '1')])])->await());
        self::assertSame(1, $store->transactions());
    }
}
