<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\RedisSubscriber;

/**
 * Kills its server: it has a class (and a server) of its own.
 */
final class ConnectionLossTest extends RedisTestCase
{
    public function testPendingCommandsFailWhenTheServerDies(): void
    {
        $redis = $this->client();
        $subscriber = RedisSubscriber::connect($this->loop, $this->server()->config());
        $subscriberClosed = null;
        $subscriber->onClose(static function (RedisConnectionException $e) use (&$subscriberClosed): void {
            $subscriberClosed = $e;
        });
        // Blocks for ever: only the server's death can end it.
        $blocked = $redis->commandAsync('BLPOP', 'none', 0);
        $behind = $redis->pipelineAsync([['PING'], ['PING']]);
        $observer = $this->client();
        $this->pollUntil(static function () use ($observer): bool {
            $info = $observer->command('INFO', 'clients');

            return \is_string($info) && str_contains($info, 'blocked_clients:1');
        });
        self::assertSame(3, $redis->pendingCount());

        $this->server()->kill();
        foreach ([$blocked, $behind] as $future) {
            try {
                $future->await();
                self::fail('a pending command must fail when the server dies');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString('closed the connection', $e->getMessage());
                self::assertStringContainsString('3 pending command(s) failed', $e->getMessage());
            }
        }
        self::assertTrue($redis->isClosed());
        $this->runUntil(static function () use (&$subscriberClosed): bool {
            return $subscriberClosed !== null;
        });

        $this->expectException(RedisConnectionException::class);
        $redis->ping();
    }
}
