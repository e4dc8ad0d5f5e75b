<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\RedisSubscriber;

final class PubSubTest extends RedisTestCase
{
    public function testMessagesAreDeliveredInOrderUntilUnsubscribe(): void
    {
        $subscriber = $this->track(RedisSubscriber::connect($this->loop, $this->server()->config()));
        $received = [];
        $subscriber->subscribe('news', static function (string $message, string $channel) use (&$received): void {
            $received[] = "{$channel}:{$message}";
        });
        self::assertSame(['news'], $subscriber->channels());

        $publisher = $this->client();
        self::assertSame(1, $publisher->publish('news', 'one'));
        self::assertSame(1, $publisher->publish('news', 'two'));
        self::assertSame(0, $publisher->publish('other', 'ignored'));
        $this->runUntil(static function () use (&$received): bool {
            return \count($received) === 2;
        });
        self::assertSame(['news:one', 'news:two'], $received);

        $subscriber->unsubscribe('news');
        self::assertSame([], $subscriber->channels());
        $marker = false;
        $subscriber->subscribe('marker', static function () use (&$marker): void {
            $marker = true;
        });
        self::assertSame(0, $publisher->publish('news', 'three'));
        // Messages arrive in order: once the marker is there, 'three' would have been too.
        self::assertSame(1, $publisher->publish('marker', 'done'));
        $this->runUntil(static function () use (&$marker): bool {
            return $marker;
        });
        self::assertSame(['news:one', 'news:two'], $received);
    }

    public function testPatternSubscriptions(): void
    {
        $subscriber = $this->track(RedisSubscriber::connect($this->loop, $this->server()->config()));
        $received = [];
        $subscriber->psubscribe('user.*', static function (string $message, string $channel, string $pattern) use (&$received): void {
            $received[] = [$pattern, $channel, $message];
        });
        $publisher = $this->client();
        self::assertSame(1, $publisher->publish('user.42', 'hi'));
        $this->runUntil(static function () use (&$received): bool {
            return $received !== [];
        });
        self::assertSame([['user.*', 'user.42', 'hi']], $received);

        $subscriber->punsubscribe('user.*');
        self::assertSame(0, $publisher->publish('user.42', 'again'));
    }

    public function testSeveralChannelsOnOneConnection(): void
    {
        $subscriber = $this->track(RedisSubscriber::connect($this->loop, $this->server()->config()));
        $received = [];
        $collect = static function (string $message, string $channel) use (&$received): void {
            $received[] = "{$channel}:{$message}";
        };
        $subscriber->subscribeAsync('a', $collect);
        $subscriber->subscribeAsync('b', $collect)->await();
        $publisher = $this->client();
        $publisher->pipeline([['PUBLISH', 'b', '1'], ['PUBLISH', 'a', '2'], ['PUBLISH', 'b', '3']]);
        $this->runUntil(static function () use (&$received): bool {
            return \count($received) === 3;
        });
        self::assertSame(['b:1', 'a:2', 'b:3'], $received);
    }

    public function testCloseIsReported(): void
    {
        $subscriber = RedisSubscriber::connect($this->loop, $this->server()->config());
        $reason = null;
        $subscriber->onClose(static function (RedisConnectionException $e) use (&$reason): void {
            $reason = $e;
        });
        $subscriber->close();
        self::assertTrue($subscriber->isClosed());
        self::assertInstanceOf(RedisConnectionException::class, $reason);
        $this->expectException(RedisConnectionException::class);
        $subscriber->subscribe('late', static function (): void {});
    }
}
