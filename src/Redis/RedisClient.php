<?php

declare(strict_types=1);

namespace Nexus\Redis;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Exception\ConnectTimeoutException;
use Nexus\Metrics\HistogramSeries;
use Nexus\Pool\TaskCancellation;
use Nexus\Redis\Exception\InvalidRedisCommandException;
use Nexus\Redis\Exception\InvalidRedisConfigException;
use Nexus\Redis\Exception\RedisAuthenticationException;
use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisConnectTimeoutException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisProtocolException;
use Nexus\Redis\Exception\RedisReplyLimitException;
use Nexus\Redis\Exception\RedisTimeoutException;
use Nexus\Redis\Internal\CommandSpan;
use Nexus\Redis\Internal\PipelineReplies;
use Nexus\Redis\Protocol\RespEncoder;
use Nexus\Redis\Protocol\RespParser;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Trace\Tracing;

/**
 * One connection to Redis, speaking RESP2 on the loop.
 *
 * Commands issued in the same loop turn (from any number of fibers) go out in one socket write
 * at the start of the next turn, and replies are matched to them in order. The awaiting methods
 * (command(), get(), pipeline(), ...) suspend only the calling fiber; from top-level code they
 * run the loop, like Future::await().
 *
 * Replies: simple and bulk strings as string, integers as int, nil as null, arrays as lists. An
 * error reply rejects its command with a RedisErrorException. When the connection breaks, every
 * pending command fails with a RedisConnectionException and so does every later one: open a new
 * client (RedisPool does that by itself).
 *
 * Blocking commands (BLPOP, ...) and MULTI hold the connection: other commands on it wait behind
 * them. Use a separate client or the pool for those.
 *
 * Bounded (RedisConfig): a command waits at most commandTimeout (30 s by default) for its reply,
 * then the connection is closed with RedisTimeoutException, failing the commands behind it too
 * (replies are matched in order, so a late one cannot be skipped). A reply beyond the parser's
 * limits closes the connection with RedisReplyLimitException. A command given a Cancellation that
 * is requested before its reply fails with the CancelledException and closes the connection for
 * the same reason; the commands pending with it fail with a RedisConnectionException saying so.
 *
 * Observability: a client measured by measureInto() (every connection of a RedisPool) adds the
 * duration of each command, and of each pipeline as one operation, from queueing to its reply or
 * failure, to a histogram (db.client.operation.duration): the hrtime() stamp each command
 * gets anyway for its command timeout, one hrtime() call and one observation per reply. A command sent from traced work (Scheduler::$trace,
 * with Tracing::$tracer installed) gets a client span (Internal\CommandSpan: the command's name,
 * never its arguments); with tracing off that costs one null check.
 */
final class RedisClient
{
    private readonly RespParser $parser;
    /** @var array<int, Deferred<mixed>|PipelineReplies> awaiting their reply, oldest first */
    private array $waiting = [];
    private int $head = 0;
    private int $tail = 0;
    /** @var array<int, int|float> hrtime() when each waiting command was queued (only when $stamped) */
    private array $queuedAt = [];
    /** whether commands are stamped with the time they were queued: with a command timeout, or when measured */
    private bool $stamped;
    private string $outgoing = '';
    private bool $flushScheduled = false;
    /** @var \Closure(): void */
    private readonly \Closure $flush;
    private ?RedisConnectionException $closedBy = null;
    /** checks the oldest pending command against the command timeout; armed lazily, at most one */
    private ?int $timeoutTimer = null;
    private readonly ?float $commandTimeout;
    /** @var (\Closure(mixed): void)|null */
    private ?\Closure $pushHandler = null;
    /** @var list<\Closure(RedisConnectionException): void> */
    private array $closeCallbacks = [];
    /** where each command's duration goes, when measured */
    private ?HistogramSeries $durations = null;

    private function __construct(
        private readonly Loop $loop,
        private readonly Connection $connection,
        private readonly RedisConfig $config,
    ) {
        $this->parser = $config->parser();
        $this->commandTimeout = $config->commandTimeout;
        $this->stamped = $config->commandTimeout !== null;
        $this->flush = function (): void {
            $this->flushScheduled = false;
            if ($this->outgoing !== '' && $this->closedBy === null) {
                $data = $this->outgoing;
                $this->outgoing = '';
                $this->connection->write($data);
            }
        };
        $connection->onData(function (string $data): void {
            $this->receive($data);
        });
        $connection->onEnd(function (): void {
            $this->closeWith(new RedisConnectionException(
                "Redis at {$this->config->endpoint()} closed the connection (server shut down, killed, or idle timeout reached)."
                . $this->pendingNote(),
            ));
        });
        $connection->onClose(function (?\Throwable $reason): void {
            $this->closeWith(new RedisConnectionException(
                "The connection to Redis at {$this->config->endpoint()} was lost"
                . ($reason !== null ? ': ' . $reason->getMessage() : '.') . $this->pendingNote(),
                0,
                $reason,
            ));
        });
    }

    /**
     * Connects, authenticates (AUTH) and selects the database (SELECT), waiting for all of it.
     *
     * @throws RedisConnectionException     when Redis cannot be reached or does not answer in time
     * @throws RedisAuthenticationException when AUTH is refused
     * @throws InvalidRedisConfigException  when the host name does not resolve
     */
    public static function connect(Loop $loop, RedisConfig $config): self
    {
        return self::connectAsync($loop, $config)->await();
    }

    /**
     * @return Future<self>
     */
    public static function connectAsync(Loop $loop, RedisConfig $config): Future
    {
        /** @var Deferred<self> $deferred */
        $deferred = new Deferred($loop);
        try {
            $address = $config->address();
        } catch (InvalidRedisConfigException $e) {
            return Future::rejected($loop, $e);
        }
        Connector::connect($loop, $address, $config->connectTimeout)->onSettle(
            static function (?\Throwable $error, mixed $connection) use ($loop, $config, $deferred): void {
                if (!$connection instanceof Connection) {
                    $deferred->reject($error instanceof ConnectTimeoutException
                        ? new RedisConnectTimeoutException(sprintf(
                            'Connecting to Redis at %s took longer than the connect timeout of %.3f s. Check host and port, or raise connectTimeout in the RedisConfig.',
                            $config->endpoint(),
                            $config->connectTimeout,
                        ), 0, $error)
                        : new RedisConnectionException(
                            "Could not connect to Redis at {$config->endpoint()}: " . ($error?->getMessage() ?? 'no connection')
                            . ' Is redis-server running there? Check host and port in the RedisConfig.',
                            0,
                            $error,
                        ));

                    return;
                }
                (new self($loop, $connection, $config))->handshake($deferred);
            },
        );

        return $deferred->future();
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @throws RedisErrorException      when Redis answers with an error
     * @throws RedisConnectionException when the connection is closed or breaks first
     */
    public function command(string $name, string|int|float ...$args): mixed
    {
        return $this->commandAsync($name, ...$args)->await();
    }

    /**
     * Queues a command; it is written with the others of this loop turn.
     *
     * @return Future<mixed>
     */
    public function commandAsync(string $name, string|int|float ...$args): Future
    {
        if ($this->closedBy !== null) {
            return Future::rejected($this->loop, $this->closedError());
        }
        /** @var Deferred<mixed> $deferred */
        $deferred = new Deferred($this->loop);
        $this->waiting[$this->tail] = $deferred;
        if ($this->stamped) {
            $this->queuedAt[$this->tail] = hrtime(true);
            if ($this->timeoutTimer === null && $this->commandTimeout !== null) {
                $this->armTimeout($this->commandTimeout);
            }
        }
        ++$this->tail;
        $this->outgoing .= RespEncoder::command($name, $args);
        if (!$this->flushScheduled) {
            $this->flushScheduled = true;
            $this->loop->defer($this->flush);
        }
        if (Tracing::$tracer !== null && ($trace = $this->loop->scheduler()->trace) !== null) {
            return CommandSpan::around($deferred->future(), $this->loop, $this->config, Tracing::$tracer, $trace, $name);
        }

        return $deferred->future();
    }

    /**
     * Sends one command (the name first, then its arguments) and waits for its reply. When
     * $cancellation, or the cancellation the current task runs under, is requested first, the
     * call fails with its CancelledException and the connection is closed (its reply cannot be
     * skipped): use a RedisPool, which replaces it.
     *
     * @param list<string|int|float> $command
     *
     * @throws RedisErrorException      when Redis answers with an error
     * @throws RedisConnectionException when the connection is closed or breaks first
     * @throws CancelledException       when cancelled first
     */
    public function execute(array $command, ?Cancellation $cancellation = null): mixed
    {
        return $this->executeAsync($command, TaskCancellation::of($this->loop, $cancellation))->await();
    }

    /**
     * @param list<string|int|float> $command
     *
     * @return Future<mixed>
     */
    public function executeAsync(array $command, ?Cancellation $cancellation = null): Future
    {
        if ($command === []) {
            throw new InvalidRedisCommandException('The command is empty: give the name first, then its arguments.');
        }
        $name = array_shift($command);

        return $this->cancellable($this->commandAsync((string) $name, ...$command), $cancellation);
    }

    /**
     * Sends many commands in one write and waits for all replies. An error reply does not throw:
     * its RedisErrorException object is returned in that command's slot, so the other replies
     * are not lost. A broken connection throws RedisConnectionException.
     *
     * @param list<list<string|int|float>> $commands each one the name first, then its arguments
     *
     * @return list<mixed> one reply per command, in order
     */
    public function pipeline(array $commands, ?Cancellation $cancellation = null): array
    {
        return $this->pipelineAsync($commands, TaskCancellation::of($this->loop, $cancellation))->await();
    }

    /**
     * @param list<list<string|int|float>> $commands
     *
     * @return Future<list<mixed>>
     */
    public function pipelineAsync(array $commands, ?Cancellation $cancellation = null): Future
    {
        return $this->cancellable($this->queuePipeline($commands), $cancellation);
    }

    /**
     * @param list<list<string|int|float>> $commands
     *
     * @return Future<list<mixed>>
     */
    private function queuePipeline(array $commands): Future
    {
        if ($commands === []) {
            return Future::fulfilled($this->loop, []);
        }
        if ($this->closedBy !== null) {
            return Future::rejected($this->loop, $this->closedError());
        }
        $bytes = '';
        foreach ($commands as $i => $command) {
            if ($command === []) {
                throw new InvalidRedisCommandException("Command {$i} of the pipeline is empty: give the name first, then its arguments.");
            }
            $bytes .= RespEncoder::parts($command);
        }
        /** @var Deferred<list<mixed>> $deferred */
        $deferred = new Deferred($this->loop);
        $collector = new PipelineReplies($deferred, \count($commands));
        $now = hrtime(true);
        foreach ($commands as $_) {
            $this->waiting[$this->tail] = $collector;
            if ($this->stamped) {
                $this->queuedAt[$this->tail] = $now;
            }
            ++$this->tail;
        }
        if ($this->commandTimeout !== null && $this->timeoutTimer === null) {
            $this->armTimeout($this->commandTimeout);
        }
        $this->outgoing .= $bytes;
        if (!$this->flushScheduled) {
            $this->flushScheduled = true;
            $this->loop->defer($this->flush);
        }
        if (Tracing::$tracer !== null && ($trace = $this->loop->scheduler()->trace) !== null) {
            return CommandSpan::around($deferred->future(), $this->loop, $this->config, Tracing::$tracer, $trace, '', $commands);
        }

        return $deferred->future();
    }

    public function ping(): string
    {
        return self::string($this->command('PING'), 'PING');
    }

    public function get(string $key): ?string
    {
        $reply = $this->command('GET', $key);

        return $reply === null ? null : self::string($reply, 'GET');
    }

    /**
     * SET, with an expiry in seconds (milliseconds precision) when $ttl is given. With
     * $onlyIfAbsent (NX) it returns false when the key already existed; otherwise true.
     */
    public function set(string $key, string|int|float $value, ?float $ttl = null, bool $onlyIfAbsent = false): bool
    {
        $args = [$key, $value];
        if ($ttl !== null) {
            if (!($ttl > 0.0)) {
                throw new InvalidRedisCommandException("A TTL must be above zero seconds, got {$ttl}; use del() to remove a key.");
            }
            $args[] = 'PX';
            $args[] = max(1, (int) round($ttl * 1000));
        }
        if ($onlyIfAbsent) {
            $args[] = 'NX';
        }

        return $this->command('SET', ...$args) !== null;
    }

    public function del(string $key, string ...$keys): int
    {
        return self::int($this->command('DEL', $key, ...$keys), 'DEL');
    }

    public function exists(string $key, string ...$keys): int
    {
        return self::int($this->command('EXISTS', $key, ...$keys), 'EXISTS');
    }

    public function incr(string $key): int
    {
        return self::int($this->command('INCR', $key), 'INCR');
    }

    public function incrBy(string $key, int $by): int
    {
        return self::int($this->command('INCRBY', $key, $by), 'INCRBY');
    }

    /**
     * Sets a timeout in seconds (milliseconds precision). False when the key does not exist.
     */
    public function expire(string $key, float $seconds): bool
    {
        return self::int($this->command('PEXPIRE', $key, (int) round($seconds * 1000)), 'PEXPIRE') === 1;
    }

    public function hget(string $key, string $field): ?string
    {
        $reply = $this->command('HGET', $key, $field);

        return $reply === null ? null : self::string($reply, 'HGET');
    }

    /**
     * @return int how many fields were new
     */
    public function hset(string $key, string $field, string|int|float $value): int
    {
        return self::int($this->command('HSET', $key, $field, $value), 'HSET');
    }

    /**
     * @return array<string, string>
     */
    public function hgetAll(string $key): array
    {
        $reply = $this->command('HGETALL', $key);
        if (!\is_array($reply)) {
            throw RedisProtocolException::unexpectedReply('HGETALL', 'an array', $reply);
        }
        $hash = [];
        for ($i = 0, $n = \count($reply); $i + 1 < $n; $i += 2) {
            $hash[self::string($reply[$i], 'HGETALL')] = self::string($reply[$i + 1], 'HGETALL');
        }

        return $hash;
    }

    /**
     * @return int the length of the list after the push
     */
    public function lpush(string $key, string|int|float $value, string|int|float ...$values): int
    {
        return self::int($this->command('LPUSH', $key, $value, ...$values), 'LPUSH');
    }

    /**
     * @return int the length of the list after the push
     */
    public function rpush(string $key, string|int|float $value, string|int|float ...$values): int
    {
        return self::int($this->command('RPUSH', $key, $value, ...$values), 'RPUSH');
    }

    /**
     * @return list<string>
     */
    public function lrange(string $key, int $start, int $stop): array
    {
        $reply = $this->command('LRANGE', $key, $start, $stop);
        if (!\is_array($reply)) {
            throw RedisProtocolException::unexpectedReply('LRANGE', 'an array', $reply);
        }
        $list = [];
        foreach ($reply as $item) {
            $list[] = self::string($item, 'LRANGE');
        }

        return $list;
    }

    /**
     * @return int how many subscribers received the message
     */
    public function publish(string $channel, string $message): int
    {
        return self::int($this->command('PUBLISH', $channel, $message), 'PUBLISH');
    }

    /**
     * Closes the connection at once. Pending commands fail with RedisConnectionException.
     */
    public function close(): void
    {
        $this->closeWith(new RedisConnectionException(
            "The Redis client for {$this->config->endpoint()} was closed with close()." . $this->pendingNote(),
        ));
    }

    public function isClosed(): bool
    {
        return $this->closedBy !== null;
    }

    /**
     * Commands sent or queued that have no reply yet.
     */
    public function pendingCount(): int
    {
        return $this->tail - $this->head;
    }

    public function config(): RedisConfig
    {
        return $this->config;
    }

    /**
     * From now on every command (a pipeline as one operation) adds its duration, from queueing
     * to its reply or failure, to $durations. A RedisPool does this for each connection it opens.
     */
    public function measureInto(HistogramSeries $durations): void
    {
        $this->durations = $durations;
        $this->stamped = true;
    }

    /**
     * @param \Closure(RedisConnectionException): void $callback called once when the client closes
     *                                                          for any reason (at once if it has)
     */
    public function onClose(\Closure $callback): void
    {
        if ($this->closedBy !== null) {
            $callback($this->closedBy);

            return;
        }
        $this->closeCallbacks[] = $callback;
    }

    /**
     * @internal for RedisSubscriber: queues a command whose replies arrive as pushes
     */
    public function send(string $name, string ...$args): void
    {
        if ($this->closedBy !== null) {
            throw $this->closedError();
        }
        $this->outgoing .= RespEncoder::command($name, $args);
        if (!$this->flushScheduled) {
            $this->flushScheduled = true;
            $this->loop->defer($this->flush);
        }
    }

    /**
     * @internal for RedisSubscriber: replies that no command waits for go to $handler
     *
     * @param \Closure(mixed): void $handler
     */
    public function onPush(\Closure $handler): void
    {
        $this->pushHandler = $handler;
    }

    /**
     * @internal closes with the given reason
     */
    public function closeWith(RedisConnectionException $reason): void
    {
        if ($this->closedBy !== null) {
            return;
        }
        $this->closedBy = $reason;
        if ($this->timeoutTimer !== null) {
            $this->loop->cancel($this->timeoutTimer);
            $this->timeoutTimer = null;
        }
        $this->outgoing = '';
        if ($this->durations !== null) {
            // Each command (a pipeline once) that fails now counts with the time it waited.
            $now = hrtime(true);
            $last = null;
            foreach ($this->waiting as $i => $waiter) {
                if ($waiter !== $last && isset($this->queuedAt[$i])) {
                    $this->durations->observe(($now - $this->queuedAt[$i]) / 1e9);
                }
                $last = $waiter;
            }
        }
        $waiting = $this->waiting;
        $this->waiting = $this->queuedAt = [];
        $this->head = $this->tail = 0;
        $this->pushHandler = null;
        $this->connection->close();
        foreach ($waiting as $waiter) {
            if ($waiter instanceof Deferred) {
                $waiter->tryReject($reason);
            } else {
                $waiter->fail($reason);
            }
        }
        $callbacks = $this->closeCallbacks;
        $this->closeCallbacks = [];
        foreach ($callbacks as $callback) {
            try {
                $callback($reason);
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
    }

    /**
     * @param Deferred<self> $deferred
     */
    private function handshake(Deferred $deferred): void
    {
        $steps = [];
        if ($this->config->password !== null) {
            $steps[] = $this->config->username !== null
                ? $this->commandAsync('AUTH', $this->config->username, $this->config->password)
                : $this->commandAsync('AUTH', $this->config->password);
        }
        if ($this->config->database !== 0) {
            $steps[] = $this->commandAsync('SELECT', $this->config->database);
        }
        if ($steps === []) {
            $deferred->resolve($this);

            return;
        }
        $endpoint = $this->config->endpoint();
        $timer = $this->loop->delay($this->config->connectTimeout, function () use ($deferred, $endpoint): void {
            if (!$deferred->isSettled()) {
                $error = new RedisConnectTimeoutException(sprintf(
                    'Redis at %s did not answer AUTH/SELECT within the connect timeout of %.3f s; is it overloaded? Raise connectTimeout if it is just slow.',
                    $endpoint,
                    $this->config->connectTimeout,
                ));
                $deferred->reject($error);
                $this->closeWith($error);
            }
        });
        $remaining = \count($steps);
        $database = $this->config->database;
        foreach ($steps as $i => $step) {
            $isAuth = $i === 0 && $this->config->password !== null;
            $step->onSettle(function (?\Throwable $error) use ($deferred, $timer, $isAuth, $endpoint, $database, &$remaining): void {
                if ($deferred->isSettled()) {
                    return;
                }
                if ($error !== null) {
                    $this->loop->cancel($timer);
                    $failure = match (true) {
                        $error instanceof RedisConnectionException => $error,
                        $isAuth => new RedisAuthenticationException(
                            "Redis at {$endpoint} refused AUTH: {$error->getMessage()}. Check the password (and user) in the RedisConfig.",
                            0,
                            $error,
                        ),
                        default => new RedisConnectionException(
                            "Redis at {$endpoint} refused SELECT {$database}: {$error->getMessage()}. Check the database number in the RedisConfig.",
                            0,
                            $error,
                        ),
                    };
                    $deferred->reject($failure);
                    $this->closeWith($failure);

                    return;
                }
                if (--$remaining === 0) {
                    $this->loop->cancel($timer);
                    $deferred->resolve($this);
                }
            });
        }
    }

    private function receive(string $data): void
    {
        try {
            $replies = $this->parser->feed($data);
        } catch (RedisReplyLimitException $e) {
            $this->closeWith(new RedisReplyLimitException(
                "Redis at {$this->config->endpoint()} sent a reply beyond a limit, so the connection was closed: {$e->getMessage()} Raise {$e->limit->value} in the RedisConfig if such replies are expected."
                . $this->pendingNote(),
                $e->limit,
                $e->max,
                $e->actual,
                $e,
            ));

            return;
        } catch (RedisProtocolException $e) {
            $this->closeWith(new RedisConnectionException(
                "Redis at {$this->config->endpoint()} sent bytes that are not RESP ({$e->getMessage()}); the connection was closed.",
                0,
                $e,
            ));

            return;
        }
        foreach ($replies as $reply) {
            if ($this->head === $this->tail) {
                if ($this->pushHandler !== null) {
                    ($this->pushHandler)($reply);
                    if ($this->closedBy !== null) {
                        return;
                    }

                    continue;
                }
                $this->closeWith(new RedisConnectionException(
                    "Redis at {$this->config->endpoint()} sent a reply no command was waiting for; the connection was closed so that replies cannot be mismatched.",
                ));

                return;
            }
            $waiter = $this->waiting[$this->head];
            $durations = $this->durations;
            $queuedAt = $durations === null ? 0 : ($this->queuedAt[$this->head] ?? 0);
            if (++$this->head === $this->tail) {
                $this->waiting = $this->queuedAt = [];
                $this->head = $this->tail = 0;
            } else {
                unset($this->waiting[$this->head - 1]);
                if ($this->stamped) {
                    unset($this->queuedAt[$this->head - 1]);
                }
            }
            if ($waiter instanceof Deferred) {
                if ($durations !== null && $queuedAt !== 0) {
                    $durations->observe((hrtime(true) - $queuedAt) / 1e9);
                }
                if ($reply instanceof RedisErrorException) {
                    $waiter->tryReject($reply);
                } else {
                    $waiter->tryResolve($reply);
                }
            } elseif ($waiter->add($reply) && $durations !== null && $queuedAt !== 0) {
                $durations->observe((hrtime(true) - $queuedAt) / 1e9);
            }
            if ($this->closedBy !== null) {
                return;
            }
        }
    }

    /**
     * One timer per client, not one per command: when it fires it checks the oldest pending
     * command, and sleeps again until that one's deadline.
     */
    private function armTimeout(float $seconds): void
    {
        $this->timeoutTimer = $this->loop->delay($seconds, function (): void {
            $this->timeoutTimer = null;
            $this->checkTimeout();
        });
        // The socket keeps the loop going while the client is open; an idle client's timer must not.
        $this->loop->unreference($this->timeoutTimer);
    }

    private function checkTimeout(): void
    {
        $timeout = $this->commandTimeout;
        if ($this->head === $this->tail || $this->closedBy !== null || $timeout === null) {
            return;
        }
        $waited = isset($this->queuedAt[$this->head]) ? (hrtime(true) - $this->queuedAt[$this->head]) / 1e9 : 0.0;
        if ($waited < $timeout) {
            $this->armTimeout($timeout - $waited);

            return;
        }
        $this->closeWith(new RedisTimeoutException(sprintf(
            'Redis at %s did not answer within the command timeout of %.3f s; the connection was closed%s. '
            . 'Raise commandTimeout if the server is just slow or a blocking command needs longer.',
            $this->config->endpoint(),
            $timeout,
            $this->tail - $this->head > 1 ? ' and the ' . ($this->tail - $this->head - 1) . ' commands queued behind failed too' : '',
        )));
    }

    /**
     * Ends $future early when $cancellation is requested before its reply: the caller gets the
     * CancelledException, and the connection is closed, because the reply cannot be skipped.
     *
     * @template T
     *
     * @param Future<T> $future
     *
     * @return Future<T>
     */
    private function cancellable(Future $future, ?Cancellation $cancellation): Future
    {
        if ($cancellation === null || $future->isSettled()) {
            return $future;
        }
        /** @var Deferred<T> $deferred */
        $deferred = new Deferred($this->loop);
        $id = $cancellation->subscribe(function (CancelledException $e) use ($deferred): void {
            if ($deferred->tryReject($e)) {
                $this->closeWith(new RedisConnectionException(
                    "The connection to Redis at {$this->config->endpoint()} was closed because a command on it was cancelled before its reply, and a reply cannot be skipped."
                    . $this->pendingNote(),
                    0,
                    $e,
                ));
            }
        });
        $future->onSettle(static function (?\Throwable $error, mixed $value) use ($deferred, $cancellation, $id): void {
            $cancellation->unsubscribe($id);
            if ($error !== null) {
                $deferred->tryReject($error);
            } else {
                $deferred->tryResolve($value);
            }
        });

        return $deferred->future();
    }

    private function closedError(): RedisConnectionException
    {
        $reason = $this->closedBy;
        \assert($reason !== null);

        return new RedisConnectionException(
            'This Redis client is closed (' . $reason->getMessage() . ') Open a new one, or use RedisPool, which replaces broken connections.',
            0,
            $reason,
        );
    }

    private function pendingNote(): string
    {
        $pending = $this->tail - $this->head;

        return $pending === 0 ? '' : " {$pending} pending command(s) failed; they may or may not have run on the server.";
    }

    private static function int(mixed $reply, string $command): int
    {
        return \is_int($reply) ? $reply : throw RedisProtocolException::unexpectedReply($command, 'an integer', $reply);
    }

    private static function string(mixed $reply, string $command): string
    {
        return \is_string($reply) ? $reply : throw RedisProtocolException::unexpectedReply($command, 'a string', $reply);
    }
}
