<?php

declare(strict_types=1);

namespace Nexus\Redis;

use Nexus\Redis\Exception\InvalidRedisConfigException;
use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisPoolClosedException;
use Nexus\Redis\Exception\RedisPoolTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Up to $maxSize connections, opened on demand and lent out one caller at a time, so blocking
 * commands and MULTI/EXEC are safe. When all are busy a caller waits, first come first served,
 * for at most $waitTimeout seconds (then RedisPoolTimeoutException). A connection that broke is
 * dropped when it comes back, and a new one is opened for the next caller that needs it.
 */
final class RedisPool
{
    /** @var list<RedisClient> */
    private array $idle = [];
    /** @var array<int, array{Deferred<RedisClient>, int}> waiting callers and their timeout timers, oldest first */
    private array $waiters = [];
    private int $nextWaiter = 0;
    /** connections open or being opened */
    private int $open = 0;
    private int $connecting = 0;
    private bool $closed = false;

    public function __construct(
        private readonly Loop $loop,
        private readonly RedisConfig $config,
        private readonly int $maxSize = 10,
        private readonly float $waitTimeout = 5.0,
    ) {
        if ($maxSize < 1) {
            throw new InvalidRedisConfigException("A Redis pool needs a maxSize of at least 1, got {$maxSize}.");
        }
        if (!($waitTimeout > 0.0)) {
            throw new InvalidRedisConfigException("The pool wait timeout must be above zero seconds, got {$waitTimeout}.");
        }
    }

    /**
     * Runs one command on a borrowed connection.
     *
     * @throws RedisPoolTimeoutException when no connection frees up within the wait timeout
     * @throws RedisConnectionException  when no connection can be opened, or it breaks
     * @throws RedisErrorException       when Redis answers with an error
     */
    public function command(string $name, string|int|float ...$args): mixed
    {
        $client = $this->acquire()->await();
        try {
            return $client->command($name, ...$args);
        } finally {
            $this->release($client);
        }
    }

    /**
     * Runs a pipeline on one borrowed connection (see RedisClient::pipeline()).
     *
     * @param list<list<string|int|float>> $commands
     *
     * @return list<mixed>
     */
    public function pipeline(array $commands): array
    {
        $client = $this->acquire()->await();
        try {
            return $client->pipeline($commands);
        } finally {
            $this->release($client);
        }
    }

    /**
     * Lends one connection to $work for several commands (MULTI/EXEC, WATCH, a blocking pop) and
     * takes it back afterwards. Leave it as you found it: EXEC or DISCARD what you started.
     *
     * @template R
     *
     * @param \Closure(RedisClient): R $work
     *
     * @return R
     */
    public function withClient(\Closure $work): mixed
    {
        $client = $this->acquire()->await();
        try {
            return $work($client);
        } finally {
            $this->release($client);
        }
    }

    /**
     * A connection for the caller alone; give it back with release().
     *
     * @return Future<RedisClient>
     */
    public function acquire(): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new RedisPoolClosedException('This Redis pool is closed: it lends no more connections.'));
        }
        while ($this->idle !== []) {
            $client = array_pop($this->idle);
            if (!$client->isClosed()) {
                return Future::fulfilled($this->loop, $client);
            }
            --$this->open;
        }
        /** @var Deferred<RedisClient> $deferred */
        $deferred = new Deferred($this->loop);
        $id = $this->nextWaiter++;
        $timer = $this->loop->delay($this->waitTimeout, function () use ($id): void {
            $waiter = $this->waiters[$id] ?? null;
            if ($waiter !== null) {
                unset($this->waiters[$id]);
                $waiter[0]->reject(new RedisPoolTimeoutException(sprintf(
                    'No Redis connection became free within %.3f s: all %d are busy. Raise maxSize or waitTimeout, or look for slow commands holding connections.',
                    $this->waitTimeout,
                    $this->maxSize,
                )));
            }
        });
        $this->waiters[$id] = [$deferred, $timer];
        $this->dispatch();

        return $deferred->future();
    }

    /**
     * Gives a connection from acquire() back: to the oldest waiting caller, or to the idle set.
     * A closed connection is dropped.
     */
    public function release(RedisClient $client): void
    {
        if ($this->closed || $client->isClosed()) {
            $client->close();
            --$this->open;
        } else {
            $this->idle[] = $client;
        }
        $this->dispatch();
    }

    /**
     * Closes the idle connections now and the borrowed ones when they come back. Waiting callers
     * fail with RedisPoolClosedException.
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $idle = $this->idle;
        $this->idle = [];
        foreach ($idle as $client) {
            --$this->open;
            $client->close();
        }
        $waiters = $this->waiters;
        $this->waiters = [];
        foreach ($waiters as [$deferred, $timer]) {
            $this->loop->cancel($timer);
            $deferred->reject(new RedisPoolClosedException('The Redis pool was closed while this caller waited for a connection.'));
        }
    }

    /**
     * Connections open, lent out or idle, or being opened.
     */
    public function size(): int
    {
        return $this->open;
    }

    public function idleCount(): int
    {
        return \count($this->idle);
    }

    public function waitingCount(): int
    {
        return \count($this->waiters);
    }

    private function dispatch(): void
    {
        while ($this->waiters !== [] && $this->idle !== []) {
            $client = array_pop($this->idle);
            if ($client->isClosed()) {
                --$this->open;

                continue;
            }
            $this->popWaiter()->resolve($client);
        }
        while (!$this->closed && \count($this->waiters) > $this->connecting && $this->open < $this->maxSize) {
            ++$this->open;
            ++$this->connecting;
            RedisClient::connectAsync($this->loop, $this->config)->onSettle(function (?\Throwable $error, mixed $client): void {
                --$this->connecting;
                if ($client instanceof RedisClient) {
                    $this->release($client);

                    return;
                }
                --$this->open;
                // The server is likely down: fail the caller that waited longest rather than retry.
                if ($this->waiters !== []) {
                    $this->popWaiter()->reject($error ?? new RedisConnectionException('Could not open a Redis connection.'));
                }
                $this->dispatch();
            });
        }
    }

    /**
     * @return Deferred<RedisClient>
     */
    private function popWaiter(): Deferred
    {
        $id = array_key_first($this->waiters);
        \assert($id !== null);
        [$deferred, $timer] = $this->waiters[$id];
        unset($this->waiters[$id]);
        $this->loop->cancel($timer);

        return $deferred;
    }
}
