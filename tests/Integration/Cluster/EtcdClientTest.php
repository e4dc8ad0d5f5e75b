<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Cluster\Etcd\EtcdClient;
use Nexus\Cluster\Etcd\KeyValue;
use Nexus\Cluster\Etcd\Lease;
use Nexus\Cluster\Etcd\RangeResult;
use Nexus\Cluster\Etcd\WatchEvent;
use Nexus\Cluster\Exception\EtcdUnavailableException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\EtcdServer;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * The etcd client against a real etcd (Debian etcd-server) in a temp directory.
 */
final class EtcdClientTest extends TestCase
{
    use RunsTheLoop;

    private static ?EtcdServer $etcd = null;
    private Loop $loop;
    private EtcdClient $client;

    public static function setUpBeforeClass(): void
    {
        $why = null;
        if (EtcdServer::binary($why) !== null) {
            self::$etcd = EtcdServer::start();
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$etcd?->destroy();
        self::$etcd = null;
    }

    protected function setUp(): void
    {
        $why = null;
        if (EtcdServer::binary($why) === null) {
            self::markTestSkipped((string) $why);
        }
        $etcd = self::$etcd;
        \assert($etcd !== null);
        $etcd->restart();
        $this->loop = new Loop();
        $this->client = new EtcdClient($this->loop, $etcd->endpoint(), 5.0);
    }

    protected function tearDown(): void
    {
        if (isset($this->client)) {
            $this->client->close();
        }
    }

    public function testKeysWithALeaseAreReadByPrefixAndGoWithTheRevokedLease(): void
    {
        $prefix = '/test-' . bin2hex(random_bytes(4)) . '/';
        $lease = $this->await($this->client->grantLease(30));
        self::assertInstanceOf(Lease::class, $lease);
        $first = $this->await($this->client->put($prefix . 'a', "one\0binary", $lease->id));
        $second = $this->await($this->client->put($prefix . 'b', 'two'));
        self::assertIsInt($first);
        self::assertGreaterThan($first, $second);
        $this->await($this->client->put($prefix . 'c/deeper', 'three'));
        $this->await($this->client->put(substr($prefix, 0, -1) . 'x', 'outside the prefix'));

        $range = $this->await($this->client->range($prefix));
        self::assertInstanceOf(RangeResult::class, $range);
        self::assertSame([$prefix . 'a' => "one\0binary", $prefix . 'b' => 'two', $prefix . 'c/deeper' => 'three'], self::values($range->kvs));
        self::assertSame($lease->id, $range->kvs[0]->lease);
        self::assertSame($first, $range->kvs[0]->createRevision);
        self::assertGreaterThanOrEqual($second, $range->revision);

        self::assertGreaterThan(0, $this->await($this->client->keepAlive($lease->id)));
        $this->await($this->client->revoke($lease->id));
        $after = $this->await($this->client->range($prefix));
        self::assertInstanceOf(RangeResult::class, $after);
        self::assertSame([$prefix . 'b' => 'two', $prefix . 'c/deeper' => 'three'], self::values($after->kvs));
        self::assertSame(0, $this->await($this->client->keepAlive($lease->id)), 'a revoked lease is gone');
        $this->await($this->client->revoke($lease->id)); // revoking it again is no error
    }

    public function testCreateIfAbsentKeepsTheFirstValue(): void
    {
        $key = '/test-' . bin2hex(random_bytes(4)) . '/store';
        $mine = $this->await($this->client->createIfAbsent($key, 'store-1'));
        $theirs = $this->await($this->client->createIfAbsent($key, 'store-2'));

        self::assertInstanceOf(KeyValue::class, $mine);
        self::assertInstanceOf(KeyValue::class, $theirs);
        self::assertSame('store-1', $mine->value);
        self::assertSame('store-1', $theirs->value);
        self::assertSame($mine->createRevision, $theirs->createRevision);
    }

    public function testALeaseNotKeptAliveExpiresWithItsKeys(): void
    {
        $prefix = '/test-' . bin2hex(random_bytes(4)) . '/';
        $lease = $this->await($this->client->grantLease(2));
        self::assertInstanceOf(Lease::class, $lease);
        $this->await($this->client->put($prefix . 'member', 'alive', $lease->id));
        $deleted = [];
        $watch = $this->client->watch($prefix, 1, static function (array $events) use (&$deleted): void {
            foreach ($events as $event) {
                if ($event->deleted) {
                    $deleted[] = $event->kv->key;
                }
            }
        }, static function (): void {});

        $this->pollUntil(static function () use (&$deleted): bool {
            return $deleted !== [];
        }, 15.0);
        self::assertSame([$prefix . 'member'], $deleted);
        $watch->close();
    }

    public function testAWatchSeesEveryChangeInOrderFromItsRevisionAndEndsWhenEtcdGoes(): void
    {
        $prefix = '/test-' . bin2hex(random_bytes(4)) . '/';
        $start = $this->await($this->client->put($prefix . 'before', '0'));
        self::assertIsInt($start);
        /** @var list<WatchEvent> $seen */
        $seen = [];
        $ended = null;
        $watch = $this->client->watch($prefix, $start, static function (array $events) use (&$seen): void {
            array_push($seen, ...$events);
        }, static function (\Throwable $why) use (&$ended): void {
            $ended = $why;
        });
        for ($i = 1; $i <= 5; ++$i) {
            $this->await($this->client->put($prefix . "k{$i}", (string) $i));
        }
        $this->await($this->client->delete($prefix . 'k2'));
        $this->pollUntil(static function () use (&$seen): bool {
            return \count($seen) >= 7;
        });

        self::assertSame(
            ['before', 'k1', 'k2', 'k3', 'k4', 'k5', '-k2'],
            array_map(static fn(WatchEvent $e): string => ($e->deleted ? '-' : '') . substr($e->kv->key, \strlen($prefix)), $seen),
        );
        self::assertSame($seen[6]->kv->modRevision, $watch->revision);

        $etcd = self::$etcd;
        \assert($etcd !== null);
        $etcd->kill();
        $this->pollUntil(static function () use (&$ended): bool {
            return $ended !== null;
        }, 10.0);
        self::assertInstanceOf(EtcdUnavailableException::class, $ended);
        self::assertFalse($watch->isOpen());

        $failure = null;
        try {
            $this->await($this->client->range($prefix));
        } catch (EtcdUnavailableException $e) {
            $failure = $e;
        }
        self::assertNotNull($failure, 'a call while etcd is down fails as unavailable');
        self::assertStringContainsString('/v3/kv/range', $failure->getMessage());
    }

    /**
     * @param Future<mixed> $future
     */
    private function await(Future $future): mixed
    {
        $this->pollUntil(static fn(): bool => $future->isSettled(), 15.0);

        return $future->await();
    }

    /**
     * @param list<KeyValue> $kvs
     *
     * @return array<string, string>
     */
    private static function values(array $kvs): array
    {
        $values = [];
        foreach ($kvs as $kv) {
            $values[$kv->key] = $kv->value;
        }

        return $values;
    }
}
