<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisPool;
use Nexus\Redis\RedisSubscriber;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RedisServer;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * One real redis-server per test class; every test gets a fresh loop, an empty server and a
 * watchdog that fails it instead of letting a bug hang the suite.
 */
abstract class RedisTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 10.0;

    protected static ?RedisServer $server = null;
    protected Loop $loop;
    private int $watchdog;
    /** @var list<RedisClient|RedisSubscriber|RedisPool> */
    private array $toClose = [];

    public static function setUpBeforeClass(): void
    {
        self::$server = RedisServer::start(static::password());
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    protected static function password(): ?string
    {
        return null;
    }

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->watchdog = $this->loop->delay(self::WATCHDOG_SECONDS, static function (): never {
            throw new \RuntimeException('Watchdog: the test did not finish within ' . self::WATCHDOG_SECONDS . ' s.');
        });
        $this->loop->unreference($this->watchdog);
        if (static::password() === null) {
            $this->client()->command('FLUSHALL');
        }
    }

    protected function tearDown(): void
    {
        foreach ($this->toClose as $resource) {
            $resource->close();
        }
        $this->toClose = [];
        $this->loop->cancel($this->watchdog);
    }

    protected function server(): RedisServer
    {
        return self::$server ?? throw new \LogicException('The Redis server is not running.');
    }

    protected function client(?float $commandTimeout = null): RedisClient
    {
        return $this->track(RedisClient::connect($this->loop, $this->server()->config($commandTimeout)));
    }

    /**
     * @template T of RedisClient|RedisSubscriber|RedisPool
     *
     * @param T $resource
     *
     * @return T
     */
    protected function track(RedisClient|RedisSubscriber|RedisPool $resource): RedisClient|RedisSubscriber|RedisPool
    {
        $this->toClose[] = $resource;

        return $resource;
    }
}
