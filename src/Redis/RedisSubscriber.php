<?php

declare(strict_types=1);

namespace Nexus\Redis;

use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisProtocolException;
use Nexus\Redis\Exception\RedisTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * A connection in pub/sub mode. In RESP2 a subscribed connection can run no other command, so
 * it is a type of its own: publish with a RedisClient or a RedisPool.
 *
 * Callbacks run on the loop, in the order the messages arrive. A callback that throws does not
 * stop delivery: the exception goes to the loop's error handler.
 *
 * A (un)subscribe waits for its confirmation at most RedisConfig::$commandTimeout; past it the
 * connection is closed with RedisTimeoutException. Messages are waited for without a limit.
 */
final class RedisSubscriber
{
    /** @var array<string, \Closure(string, string): void> */
    private array $channels = [];
    /** @var array<string, \Closure(string, string, string): void> */
    private array $patterns = [];
    /** @var list<array{string, string, Deferred<null>, float}> confirmations awaited: kind, name, deferred, since */
    private array $requests = [];
    private ?int $timeoutTimer = null;

    private function __construct(
        private readonly Loop $loop,
        private readonly RedisClient $client,
    ) {
        $client->onPush(function (mixed $push): void {
            $this->handlePush($push);
        });
        $client->onClose(function (RedisConnectionException $reason): void {
            $requests = $this->requests;
            $this->requests = [];
            foreach ($requests as [, , $deferred]) {
                $deferred->reject($reason);
            }
        });
    }

    /**
     * Connects and authenticates (the database number does not matter to pub/sub).
     *
     * @throws RedisConnectionException
     */
    public static function connect(Loop $loop, RedisConfig $config): self
    {
        return new self($loop, RedisClient::connect($loop, $config));
    }

    /**
     * Subscribes to $channel and waits until Redis confirms: every message published after this
     * returns reaches $onMessage($message, $channel). Subscribing again replaces the callback.
     *
     * @param \Closure(string, string): void $onMessage
     */
    public function subscribe(string $channel, \Closure $onMessage): void
    {
        $this->subscribeAsync($channel, $onMessage)->await();
    }

    /**
     * @param \Closure(string, string): void $onMessage
     *
     * @return Future<null>
     */
    public function subscribeAsync(string $channel, \Closure $onMessage): Future
    {
        $this->channels[$channel] = $onMessage;

        return $this->request('SUBSCRIBE', 'subscribe', $channel);
    }

    /**
     * Subscribes to a glob pattern (news.*): $onMessage($message, $channel, $pattern).
     *
     * @param \Closure(string, string, string): void $onMessage
     */
    public function psubscribe(string $pattern, \Closure $onMessage): void
    {
        $this->psubscribeAsync($pattern, $onMessage)->await();
    }

    /**
     * @param \Closure(string, string, string): void $onMessage
     *
     * @return Future<null>
     */
    public function psubscribeAsync(string $pattern, \Closure $onMessage): Future
    {
        $this->patterns[$pattern] = $onMessage;

        return $this->request('PSUBSCRIBE', 'psubscribe', $pattern);
    }

    /**
     * Stops delivery for $channel at once (messages already on the way are dropped) and waits
     * until Redis confirms.
     */
    public function unsubscribe(string $channel): void
    {
        unset($this->channels[$channel]);
        $this->request('UNSUBSCRIBE', 'unsubscribe', $channel)->await();
    }

    public function punsubscribe(string $pattern): void
    {
        unset($this->patterns[$pattern]);
        $this->request('PUNSUBSCRIBE', 'punsubscribe', $pattern)->await();
    }

    /**
     * @return list<string> the channels with a callback
     */
    public function channels(): array
    {
        return array_map(strval(...), array_keys($this->channels));
    }

    /**
     * @return list<string> the patterns with a callback
     */
    public function patterns(): array
    {
        return array_map(strval(...), array_keys($this->patterns));
    }

    /**
     * @param \Closure(RedisConnectionException): void $callback called once when the connection
     *                                                          closes (broken or close())
     */
    public function onClose(\Closure $callback): void
    {
        $this->client->onClose($callback);
    }

    public function close(): void
    {
        $this->channels = $this->patterns = [];
        $this->client->close();
    }

    public function isClosed(): bool
    {
        return $this->client->isClosed();
    }

    /**
     * @return Future<null>
     */
    private function request(string $command, string $kind, string $name): Future
    {
        if ($this->client->isClosed()) {
            return Future::rejected($this->loop, new RedisConnectionException('This Redis subscriber is closed: connect a new one.'));
        }
        /** @var Deferred<null> $deferred */
        $deferred = new Deferred($this->loop);
        $this->requests[] = [$kind, $name, $deferred, $this->loop->now()];
        $this->client->send($command, $name);
        $timeout = $this->client->config()->commandTimeout;
        if ($timeout !== null && $this->timeoutTimer === null) {
            $this->armTimeout($timeout);
        }

        return $deferred->future();
    }

    private function armTimeout(float $seconds): void
    {
        $this->timeoutTimer = $this->loop->delay($seconds, function (): void {
            $this->timeoutTimer = null;
            $timeout = $this->client->config()->commandTimeout;
            $oldest = $this->requests[0] ?? null;
            if ($oldest === null || $timeout === null || $this->client->isClosed()) {
                return;
            }
            $waited = $this->loop->now() - $oldest[3];
            if ($waited < $timeout) {
                $this->armTimeout($timeout - $waited);

                return;
            }
            $this->client->closeWith(new RedisTimeoutException(sprintf(
                'Redis at %s did not confirm %s %s within the command timeout of %.3f s; the subscriber was closed. Raise commandTimeout if the server is just slow.',
                $this->client->config()->endpoint(),
                strtoupper($oldest[0]),
                $oldest[1],
                $timeout,
            )));
        });
        $this->loop->unreference($this->timeoutTimer);
    }

    private function handlePush(mixed $push): void
    {
        if ($push instanceof RedisErrorException) {
            $request = array_shift($this->requests);
            if ($request !== null) {
                $request[2]->reject($push);

                return;
            }
            $this->loop->defer(static function () use ($push): never {
                throw $push;
            });

            return;
        }
        if (!\is_array($push) || !isset($push[0], $push[1]) || !\is_string($push[0])) {
            $this->protocolError($push);

            return;
        }
        $kind = $push[0];
        try {
            if ($kind === 'message') {
                $callback = $this->channels[self::str($push[1])] ?? null;
                if ($callback !== null) {
                    $callback(self::str($push[2] ?? null), self::str($push[1]));
                }
            } elseif ($kind === 'pmessage') {
                $callback = $this->patterns[self::str($push[1])] ?? null;
                if ($callback !== null) {
                    $callback(self::str($push[3] ?? null), self::str($push[2] ?? null), self::str($push[1]));
                }
            } elseif ($kind === 'subscribe' || $kind === 'psubscribe' || $kind === 'unsubscribe' || $kind === 'punsubscribe') {
                $request = $this->requests[0] ?? null;
                if ($request !== null && $request[0] === $kind && $request[1] === $push[1]) {
                    array_shift($this->requests);
                    $request[2]->resolve(null);
                }
            }
        } catch (RedisProtocolException) {
            $this->protocolError($push);
        } catch (\Throwable $e) {
            // Thrown by a message callback: report it without losing the messages after it.
            $this->loop->defer(static function () use ($e): never {
                throw $e;
            });
        }
    }

    private function protocolError(mixed $push): void
    {
        $this->client->closeWith(new RedisConnectionException(
            'A subscribed connection got ' . get_debug_type($push) . ' where a pub/sub push (an array) was expected; the connection was closed.',
        ));
    }

    private static function str(mixed $value): string
    {
        return \is_string($value) ? $value : throw RedisProtocolException::unexpectedReply('a pub/sub push', 'a string', $value);
    }
}
