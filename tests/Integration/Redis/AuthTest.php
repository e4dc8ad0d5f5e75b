<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\Exception\RedisAuthenticationException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisConfig;
use Nexus\Redis\RedisSubscriber;

final class AuthTest extends RedisTestCase
{
    protected static function password(): string
    {
        return 'p@ss word';
    }

    public function testConnectsWithThePasswordFromTheUri(): void
    {
        $uri = $this->server()->uri() . '/1';
        self::assertStringContainsString(':p%40ss%20word@', $uri);
        $redis = $this->track(RedisClient::connect($this->loop, RedisConfig::fromUri($uri)));
        self::assertSame('PONG', $redis->ping());
        $redis->set('k', 'in db 1');
        self::assertSame('in db 1', $redis->get('k'));
    }

    public function testWrongPasswordFailsTheConnect(): void
    {
        $this->expectException(RedisAuthenticationException::class);
        $this->expectExceptionMessage('refused AUTH');
        RedisClient::connect($this->loop, new RedisConfig('127.0.0.1', $this->server()->port, 'wrong'));
    }

    public function testNoPasswordGivesNoauthErrors(): void
    {
        $redis = $this->track(RedisClient::connect($this->loop, new RedisConfig('127.0.0.1', $this->server()->port)));
        try {
            $redis->get('k');
            self::fail('commands need AUTH');
        } catch (RedisErrorException $e) {
            self::assertSame('NOAUTH', $e->prefix);
        }
    }

    public function testSubscriberAuthenticates(): void
    {
        $subscriber = $this->track(RedisSubscriber::connect($this->loop, $this->server()->config()));
        $got = null;
        $subscriber->subscribe('c', static function (string $message) use (&$got): void {
            $got = $message;
        });
        $this->client()->publish('c', 'secret');
        $this->runUntil(static function () use (&$got): bool {
            return $got !== null;
        });
        self::assertSame('secret', $got);
    }
}
