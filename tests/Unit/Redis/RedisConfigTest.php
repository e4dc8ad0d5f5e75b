<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Redis;

use Nexus\Redis\Exception\InvalidRedisConfigException;
use Nexus\Redis\Exception\InvalidRedisUriException;
use Nexus\Redis\RedisConfig;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RedisConfigTest extends TestCase
{
    public function testFullUri(): void
    {
        $config = RedisConfig::fromUri('redis://:s%40cret@10.0.0.5:6380/3', 1.5, 2.0);
        self::assertSame('10.0.0.5', $config->host);
        self::assertSame(6380, $config->port);
        self::assertSame('s@cret', $config->password);
        self::assertNull($config->username);
        self::assertSame(3, $config->database);
        self::assertSame(1.5, $config->connectTimeout);
        self::assertSame(2.0, $config->commandTimeout);
        self::assertSame('tcp://10.0.0.5:6380', $config->address());
    }

    public function testEveryWaitAndEveryReplyIsBoundedByDefault(): void
    {
        foreach ([new RedisConfig(), RedisConfig::fromUri('redis://127.0.0.1')] as $config) {
            self::assertSame(10.0, $config->connectTimeout);
            self::assertSame(30.0, $config->commandTimeout);
            self::assertSame(64, $config->maxReplyDepth);
            self::assertSame(1_000_000, $config->maxReplyElements);
            self::assertSame(512 * 1024 * 1024, $config->maxBulkLength);
        }
        self::assertNull((new RedisConfig())->withCommandTimeout(null)->commandTimeout);
        $this->expectException(InvalidRedisConfigException::class);
        new RedisConfig(maxReplyDepth: 0);
    }

    public function testDefaultsAndVariants(): void
    {
        $config = RedisConfig::fromUri('redis://127.0.0.1');
        self::assertSame(6379, $config->port);
        self::assertNull($config->password);
        self::assertSame(0, $config->database);

        $acl = RedisConfig::fromUri('redis://app:pw@127.0.0.1/');
        self::assertSame('app', $acl->username);
        self::assertSame('pw', $acl->password);

        self::assertSame('pw', RedisConfig::fromUri('redis://pw@127.0.0.1')->password);
        self::assertSame('tcp://[::1]:6379', RedisConfig::fromUri('redis://[::1]')->address());
        self::assertSame('tcp://127.0.0.1:6379', RedisConfig::fromUri('redis://localhost')->address());
    }

    /**
     * @return iterable<string, array{string, string}>
     */
    public static function badUris(): iterable
    {
        yield 'no scheme' => ['127.0.0.1:6379', 'Not a Redis URI'];
        yield 'other scheme' => ['http://127.0.0.1', "Unsupported scheme 'http'"];
        yield 'db not a number' => ['redis://127.0.0.1/abc', 'must be a number'];
        yield 'port zero' => ['redis://127.0.0.1:0', 'port must be between'];
        yield 'query' => ['redis://127.0.0.1?timeout=1', 'query'];
        yield 'garbage' => ['redis://', 'Not a Redis URI'];
    }

    #[DataProvider('badUris')]
    public function testBadUrisAreRejectedWithAClearMessage(string $uri, string $message): void
    {
        $this->expectException(InvalidRedisUriException::class);
        $this->expectExceptionMessage($message);
        RedisConfig::fromUri($uri);
    }

    public function testOutOfRangeValuesAreRejected(): void
    {
        $this->expectException(InvalidRedisConfigException::class);
        $this->expectExceptionMessage('command timeout');
        new RedisConfig(commandTimeout: 0.0);
    }
}
