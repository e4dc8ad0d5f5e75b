<?php

declare(strict_types=1);

namespace Nexus\Redis;

use Nexus\Pool\CallbackConnector;
use Nexus\Pool\ConnectionPool;
use Nexus\Pool\Exception\PoolException;
use Nexus\Pool\Exception\PoolTimeoutException;
use Nexus\Pool\Exception\PoolWaitQueueFullException;
use Nexus\Pool\PoolDirectory;
use Nexus\Pool\PoolInstruments;
use Nexus\Pool\PoolOptions;
use Nexus\Pool\TaskCancellation;
use Nexus\Redis\Exception\InvalidRedisConfigException;
use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisException;
use Nexus\Redis\Exception\RedisPoolClosedException;
use Nexus\Redis\Exception\RedisPoolTimeoutException;
use Nexus\Redis\Exception\RedisPoolWaitQueueFullException;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Redis connections on a Nexus\Pool\ConnectionPool: up to maxSize, opened on demand and lent out
 * one caller at a time, so blocking commands and MULTI/EXEC are safe. When all are busy a caller
 * waits, first come first served, for at most waitTimeout seconds (RedisPoolTimeoutException), at
 * most maxWaiters of them (RedisPoolWaitQueueFullException). A connection that broke, or that comes
 * back with commands still unanswered (a caller gave up on them: a reply cannot be skipped), is
 * closed and its slot freed; a new one is opened for the next caller that needs it.
 *
 * Metrics: the pool registers in PoolDirectory under $name (a label, default 'redis'); every
 * connection it opens adds the duration of each command (a pipeline as one operation; the wait
 * for a connection not included) to PoolInstruments::$durations (RedisClient::measureInto()),
 * so commands count however the connection was obtained: command(), execute(), pipeline(),
 * withClient() or acquire().
 */
final class RedisPool
{
    /** @var ConnectionPool<RedisClient> */
    private readonly ConnectionPool $pool;
    private readonly PoolInstruments $instruments;

    /**
     * @param ?PoolOptions $options all the pool settings (idle timeout, max lifetime, min idle,
     *                              maxWaiters, ...); when given, $maxSize and $waitTimeout are
     *                              not used
     */
    public function __construct(
        private readonly Loop $loop,
        RedisConfig $config,
        int $maxSize = 10,
        float $waitTimeout = 5.0,
        ?PoolOptions $options = null,
        string $name = 'redis',
    ) {
        $this->instruments = PoolDirectory::instruments('redis', $name);
        $durations = $this->instruments->durations;
        if ($options === null) {
            if ($maxSize < 1) {
                throw new InvalidRedisConfigException("A Redis pool needs a maxSize of at least 1, got {$maxSize}.");
            }
            if (!($waitTimeout > 0.0) || is_infinite($waitTimeout)) {
                throw new InvalidRedisConfigException("The pool wait timeout must be a finite number of seconds above zero, got {$waitTimeout}.");
            }
            $options = new PoolOptions(maxSize: $maxSize, acquireTimeout: $waitTimeout);
        }
        $this->pool = new ConnectionPool(
            $loop,
            new CallbackConnector(
                connect: static function () use ($loop, $config, $durations): Future {
                    $connecting = RedisClient::connectAsync($loop, $config);
                    $connecting->onSettle(static function (?\Throwable $error, mixed $client) use ($durations): void {
                        if ($client instanceof RedisClient) {
                            $client->measureInto($durations);
                        }
                    });

                    return $connecting;
                },
                isUsable: static fn(RedisClient $client): bool => !$client->isClosed() && $client->pendingCount() === 0,
                close: static function (RedisClient $client): void {
                    $client->close();
                },
            ),
            $options,
            "Redis pool for {$config->endpoint()}",
            mapError: static fn(PoolException $e): RedisException => match (true) {
                $e instanceof PoolTimeoutException => new RedisPoolTimeoutException($e->getMessage(), 0, $e),
                $e instanceof PoolWaitQueueFullException => new RedisPoolWaitQueueFullException($e->getMessage(), 0, $e),
                default => new RedisPoolClosedException($e->getMessage(), 0, $e),
            },
        );
        $this->instruments->attach($this->pool);
    }

    /**
     * Runs one command on a borrowed connection.
     *
     * @throws RedisPoolTimeoutException when no connection frees up within the wait timeout
     * @throws RedisConnectionException  when no connection can be opened, or it breaks
     * @throws RedisErrorException       when Redis answers with an error
     * @throws CancelledException        when the current task's cancellation is requested first
     *                                   (the connection is then closed and replaced)
     */
    public function command(string $name, string|int|float ...$args): mixed
    {
        $client = $this->borrow(\Fiber::getCurrent() === null ? null : TaskCancellation::of($this->loop, null));
        try {
            // If the wait ends early (the task's cancellation), the command stays unanswered and
            // release() closes the connection: the pool opens a new one.
            return $client->commandAsync($name, ...$args)->await();
        } finally {
            $this->pool->release($client);
        }
    }

    /**
     * Runs one command (the name first, then its arguments) on a borrowed connection. When
     * $cancellation, or the cancellation the current task runs under, is requested first, the
     * call fails with its CancelledException: a wait for a connection leaves the queue, and a
     * command already sent closes its connection, which the pool replaces.
     *
     * @param list<string|int|float> $command
     */
    public function execute(array $command, ?Cancellation $cancellation = null): mixed
    {
        $cancellation = TaskCancellation::of($this->loop, $cancellation);
        $client = $this->borrow($cancellation);
        try {
            return $client->executeAsync($command, $cancellation)->await();
        } finally {
            $this->pool->release($client);
        }
    }

    /**
     * Runs a pipeline on one borrowed connection (see RedisClient::pipeline()).
     *
     * @param list<list<string|int|float>> $commands
     *
     * @return list<mixed>
     */
    public function pipeline(array $commands, ?Cancellation $cancellation = null): array
    {
        $cancellation = TaskCancellation::of($this->loop, $cancellation);
        $client = $this->borrow($cancellation);
        try {
            return $client->pipelineAsync($commands, $cancellation)->await();
        } finally {
            $this->pool->release($client);
        }
    }

    /**
     * Lends one connection to $work for several commands (MULTI/EXEC, WATCH, a blocking pop) and
     * takes it back afterwards. Leave it as you found it: EXEC or DISCARD what you started.
     * $cancellation bounds the wait for a connection; pass it on to the client's calls inside.
     *
     * @template R
     *
     * @param \Closure(RedisClient): R $work
     *
     * @return R
     */
    public function withClient(\Closure $work, ?Cancellation $cancellation = null): mixed
    {
        $client = $this->borrow(TaskCancellation::of($this->loop, $cancellation));
        try {
            return $work($client);
        } finally {
            $this->pool->release($client);
        }
    }

    /**
     * A connection for the caller alone; give it back with release().
     *
     * @return Future<RedisClient>
     */
    public function acquire(?Cancellation $cancellation = null): Future
    {
        return $this->pool->acquire($cancellation);
    }

    /**
     * Gives a connection from acquire() back: to the oldest waiting caller, or to the idle set.
     * A closed connection, or one with unanswered commands, is closed and its slot freed.
     */
    public function release(RedisClient $client): void
    {
        $this->pool->release($client);
    }

    /**
     * Gives back a connection from acquire() that must not be reused: it is closed and its slot
     * freed.
     */
    public function discard(RedisClient $client): void
    {
        $this->pool->discard($client);
    }

    /**
     * Closes the idle connections now and the borrowed ones when they come back. Waiting callers
     * fail with RedisPoolClosedException.
     */
    public function close(): void
    {
        $this->pool->close();
    }

    /**
     * Connections open, lent out or idle, or being opened.
     */
    public function size(): int
    {
        return $this->pool->size();
    }

    public function idleCount(): int
    {
        return $this->pool->idleCount();
    }

    public function waitingCount(): int
    {
        return $this->pool->waitingCount();
    }

    /**
     * This pool's name in the metrics (db.client.connection.pool.name).
     */
    public function name(): string
    {
        return $this->instruments->name;
    }

    /**
     * The generic pool underneath, for its statistics and settings.
     *
     * @return ConnectionPool<RedisClient>
     */
    public function connectionPool(): ConnectionPool
    {
        return $this->pool;
    }

    private function borrow(?Cancellation $cancellation): RedisClient
    {
        return $this->pool->tryAcquire() ?? $this->pool->acquireAndAwait($cancellation);
    }
}
