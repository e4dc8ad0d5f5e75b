<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Metrics\HistogramSeries;
use Nexus\Pool\TaskCancellation;
use Nexus\Postgres\Exception\InvalidPgStatementException;
use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\Exception\PgException;
use Nexus\Postgres\Exception\PgParameterException;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\Exception\PgQueryTimeoutException;
use Nexus\Postgres\Exception\PgServerUnavailableException;
use Nexus\Postgres\Internal\ParameterEncoder;
use Nexus\Postgres\Internal\PendingStatement;
use Nexus\Postgres\Internal\StatementSpan;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Trace\Tracing;
use PgSql\Connection;
use PgSql\Result;

/**
 * One PostgreSQL connection driven by the loop through libpq's asynchronous API: nothing here
 * waits on the socket. One statement runs at a time; calls made while one runs queue in order.
 *
 * Blocking-style methods (query, prepare, transaction, ...) await: inside a fiber (an actor or an
 * HTTP handler) they suspend only that fiber, from top-level code they run the loop. The *Async
 * methods return a Future instead.
 *
 * Failures stay with their statement: a parameter that cannot be sent, or statement text with a
 * NUL byte, fails that statement at once (nothing is sent) and the queue goes on. Every statement
 * is bounded by PgConfig::$queryTimeout (30 s by default): past it, the statement is cancelled on
 * the server, fails with PgQueryTimeoutException, and the connection stays usable. A statement
 * given a Cancellation that is requested fails at once with its CancelledException: queued, it is
 * dropped; running, it is cancelled on the server and the connection stays usable.
 *
 * While a transaction() runs, statements from other fibers wait until it ends, so they never run
 * inside it.
 */
final class PgConnection
{
    private const SIMPLE = 0;
    private const PARAMS = 1;
    private const PREPARE = 2;
    private const EXECUTE = 3;
    private const MARKER = 4;
    private const TRANSACTION = 5;
    /** statements above this many bytes are sent with libpq in non-blocking mode */
    private const LARGE = 65536;

    /** @var resource */
    private readonly mixed $socket;
    private readonly int $pid;
    private readonly int $readWatcher;
    private ?int $writeWatcher = null;
    private bool $referenced = false;
    private bool $closed = false;

    /** the statement in flight */
    private ?PendingStatement $current = null;
    private float $startedAt = 0.0;
    private ?Result $lastResult = null;
    private ?PgQueryException $error = null;
    /** checks the running statement against the query timeout; armed lazily, at most one */
    private ?int $deadlineTimer = null;
    /** bounds how long the server takes to end a statement after a cancel */
    private ?int $cancelTimer = null;
    private bool $timedOut = false;
    private bool $cancelling = false;

    /** @var array<int, PendingStatement> */
    private array $queue = [];
    private int $head = 0;
    private int $tail = 0;

    /** the fiber (or this connection, for top-level code) whose transaction() runs, if any */
    private ?object $transactionOwner = null;
    private int $transactionDepth = 0;
    /** @var list<PendingStatement> statements of other fibers, and transactions waiting to start, while a transaction runs */
    private array $held = [];

    /** @var array<string, list<\Closure(PgNotification): void>> */
    private array $listeners = [];
    private int $statements = 0;

    /** where each statement's duration goes (db.client.operation.duration), when measured */
    private ?HistogramSeries $durations = null;
    /** hrtime() when the running statement was sent, when measured */
    private int $sentAt = 0;

    private function __construct(
        private readonly Loop $loop,
        private readonly PgConfig $config,
        private readonly Connection $link,
    ) {
        $socket = pg_socket($link);
        if ($socket === false) {
            throw new PgConnectionException('The PostgreSQL connection has no socket although it reported success.');
        }
        $this->socket = $socket;
        $this->pid = pg_get_pid($link);
        $this->readWatcher = $loop->onReadable($socket, function (): void {
            $this->onReadable();
        });
        $loop->unreference($this->readWatcher);
    }

    /**
     * @internal called by PgConnector once the connection is ready
     */
    public static function fromLink(Loop $loop, PgConfig $config, Connection $link): self
    {
        return new self($loop, $config, $link);
    }

    /**
     * Opens a connection and waits until it is ready (at most PgConfig::$connectTimeout, then
     * PgConnectTimeoutException).
     */
    public static function connect(Loop $loop, PgConfig $config): self
    {
        return self::connectAsync($loop, $config)->await();
    }

    /**
     * @return Future<self>
     */
    public static function connectAsync(Loop $loop, PgConfig $config): Future
    {
        /** @var Deferred<self> $deferred */
        $deferred = new Deferred($loop);
        $link = @pg_connect($config->toConnectionString(), \PGSQL_CONNECT_ASYNC | \PGSQL_CONNECT_FORCE_NEW);
        if ($link === false) {
            $deferred->reject(new PgConnectionException(sprintf(
                'Could not start connecting to PostgreSQL at %s:%d: %s',
                $config->host,
                $config->port,
                error_get_last()['message'] ?? 'unknown error',
            )));

            return $deferred->future();
        }
        $socket = pg_socket($link);
        if ($socket === false) {
            pg_close($link);
            $deferred->reject(new PgConnectionException("Could not start connecting to PostgreSQL at {$config->host}:{$config->port}: libpq opened no socket."));

            return $deferred->future();
        }
        new PgConnector($loop, $config, $link, $socket, $deferred);

        return $deferred->future();
    }

    /**
     * Runs one statement and waits for its result. Without parameters the text may hold several
     * statements separated by semicolons (the result is the last one's); with parameters
     * ($1, $2, ...) it is exactly one statement.
     *
     * The statement is cancelled on the server when $cancellation, or the cancellation the current
     * task runs under (an HTTP handler's time limit), is requested.
     *
     * @param array<mixed> $params
     */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): PgResult
    {
        /** @var Future<PgResult> $future */
        $future = $this->submit(
            $params === [] ? self::SIMPLE : self::PARAMS,
            $sql,
            $params,
            '',
            \Fiber::getCurrent() === null ? $cancellation : TaskCancellation::of($this->loop, $cancellation),
        );

        return $future->await();
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function queryAsync(string $sql, array $params = [], ?Cancellation $cancellation = null): Future
    {
        /** @var Future<PgResult> */
        return $this->submit($params === [] ? self::SIMPLE : self::PARAMS, $sql, $params, '', $cancellation);
    }

    /**
     * Prepares a statement on this connection (server side) for repeated execution.
     */
    public function prepare(string $sql): PgStatement
    {
        $name = 'nexus_' . ++$this->statements;
        $this->submit(self::PREPARE, $sql, [], $name, null)->await();

        return new PgStatement($this, $name, $sql);
    }

    /**
     * @internal use PgStatement::execute()
     *
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function executeAsync(string $statementName, array $params, string $sql, ?Cancellation $cancellation = null): Future
    {
        /** @var Future<PgResult> */
        return $this->submit(self::EXECUTE, $sql, $params, $statementName, $cancellation);
    }

    /**
     * BEGIN, $work($this), COMMIT; on an exception ROLLBACK and rethrow. Returns what $work returns.
     *
     * The connection belongs to the calling fiber until the transaction ends: statements other
     * fibers send meanwhile wait and run after it, in order, and so does another fiber's
     * transaction(). Run the transaction's statements in the calling fiber: one sent from a fiber
     * the callable starts waits for the end of the transaction too.
     *
     * @template R
     *
     * @param callable(self): R $work
     *
     * @return R
     */
    public function transaction(callable $work): mixed
    {
        $me = \Fiber::getCurrent() ?? $this;
        if ($this->transactionOwner !== null && $this->transactionOwner !== $me) {
            $this->waitForTransactionTurn($me);
        }
        $this->transactionOwner = $me;
        ++$this->transactionDepth;
        try {
            return $this->runTransaction($work);
        } finally {
            if (--$this->transactionDepth === 0) {
                $this->endTransaction();
            }
        }
    }

    /**
     * LISTENs on $channel; $onNotify(PgNotification) runs on the loop for every NOTIFY, whenever
     * the connection reads from the server (at once while idle). It runs outside any fiber: to
     * await in it, start one with Loop::async().
     *
     * @param \Closure(PgNotification): void $onNotify
     */
    public function listen(string $channel, \Closure $onNotify): void
    {
        $first = !isset($this->listeners[$channel]);
        $this->listeners[$channel][] = $onNotify;
        if ($first) {
            try {
                $this->query('LISTEN ' . $this->identifier($channel));
            } catch (\Throwable $e) {
                unset($this->listeners[$channel]);

                throw $e;
            }
        }
        $this->updateReference();
    }

    public function unlisten(string $channel): void
    {
        if (!isset($this->listeners[$channel])) {
            return;
        }
        unset($this->listeners[$channel]);
        $this->query('UNLISTEN ' . $this->identifier($channel));
        $this->updateReference();
    }

    public function notify(string $channel, string $payload = ''): void
    {
        $this->query('SELECT pg_notify($1, $2)', [$channel, $payload]);
    }

    public function hasListeners(): bool
    {
        return $this->listeners !== [];
    }

    /**
     * The server process id of this connection (what pg_stat_activity calls pid).
     */
    public function pid(): int
    {
        return $this->pid;
    }

    public function config(): PgConfig
    {
        return $this->config;
    }

    public function loop(): Loop
    {
        return $this->loop;
    }

    /**
     * From now on every statement this connection sends adds its duration, from sending to its
     * answer (or failure), to $durations: two hrtime() calls and one histogram increment per
     * statement, nothing allocated. A pool does this for every connection it opens (PgPool), so
     * that statements count however the connection was obtained; PgPool::measure() does it for a
     * connection opened outside the pool.
     */
    public function measureInto(HistogramSeries $durations): void
    {
        $this->durations = $durations;
    }

    /**
     * PGSQL_TRANSACTION_IDLE, _ACTIVE, _INTRANS, _INERROR or _UNKNOWN, as of the last result.
     */
    public function transactionStatus(): int
    {
        return $this->closed ? \PGSQL_TRANSACTION_UNKNOWN : pg_transaction_status($this->link);
    }

    /**
     * No statement running, queued or held, no transaction() running.
     */
    public function isIdle(): bool
    {
        return $this->current === null && $this->head === $this->tail && !$this->cancelling
            && $this->held === [] && $this->transactionOwner === null;
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * Settles once everything queued before this call has finished.
     *
     * @return Future<null>
     */
    public function whenIdle(): Future
    {
        if ($this->closed || $this->isIdle()) {
            return Future::fulfilled($this->loop, null);
        }

        /** @var Future<null> */
        return $this->submit(self::MARKER, '', [], '', null);
    }

    /**
     * Closes at once; pending statements fail with a PgConnectionException.
     */
    public function close(): void
    {
        $this->fail(new PgConnectionException('The PostgreSQL connection was closed while this statement was pending.'));
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<mixed>
     */
    private function submit(int $kind, string $sql, array $params, string $name, ?Cancellation $cancellation): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new PgConnectionException('This PostgreSQL connection is closed; open a new one (a PgPool replaces broken connections by itself).'));
        }
        $size = \strlen($sql);
        foreach ($params as $value) {
            // The common parameters (ints, NULLs, strings without NUL) are checked here; anything
            // else goes through the encoder, which also says what is wrong.
            if (\is_int($value) || $value === null) {
                continue;
            }
            if (\is_string($value) && !str_contains($value, "\0")) {
                $size += \strlen($value);

                continue;
            }
            $size = \strlen($sql);
            try {
                $params = ParameterEncoder::encode($params, $size);
            } catch (PgParameterException $e) {
                return Future::rejected($this->loop, $e);
            }
            break;
        }
        if (str_contains($sql, "\0")) {
            return Future::rejected($this->loop, new InvalidPgStatementException(
                'The statement text holds a NUL byte, where libpq would cut it short; nothing was sent. Pass values as parameters ($1, $2, ...): ' . self::excerpt(str_replace("\0", '\0', $sql)),
            ));
        }
        /** @var Deferred<mixed> $deferred */
        $deferred = new Deferred($this->loop);
        $statement = new PendingStatement();
        $statement->kind = $kind;
        $statement->sql = $sql;
        $statement->params = $params;
        $statement->name = $name;
        $statement->deferred = $deferred;
        $statement->size = $size;
        if ($cancellation !== null) {
            $statement->cancellation = $cancellation;
            if ($cancellation->isRequested()) {
                try {
                    $cancellation->throwIfRequested();
                } catch (CancelledException $e) {
                    return Future::rejected($this->loop, $e);
                }
            }
            $statement->subscription = $cancellation->subscribe(function (CancelledException $e) use ($statement): void {
                $this->cancel($statement, $e);
            });
        }
        if ($this->transactionOwner !== null && (\Fiber::getCurrent() ?? $this) !== $this->transactionOwner) {
            $this->held[] = $statement;
        } elseif ($this->current === null && $this->head === $this->tail && !$this->cancelling) {
            $this->start($statement);
        } else {
            $this->queue[$this->tail++] = $statement;
        }
        if (Tracing::$tracer !== null && ($trace = $this->loop->scheduler()->trace) !== null) {
            return StatementSpan::around($deferred->future(), $this->loop, $this->config, Tracing::$tracer, $trace, $sql);
        }

        return $deferred->future();
    }

    private function start(PendingStatement $statement): void
    {
        if ($statement->kind === self::MARKER) {
            $this->settle($statement, null, null);

            return;
        }
        if ($statement->size > self::LARGE) {
            // A large statement may not fit the socket buffer. In blocking mode pg_send_* would
            // flush it in a sleep loop; in non-blocking mode it returns 0 and the rest is flushed
            // on writability. ext-pgsql maps stream_set_blocking() onto PQsetnonblocking() with
            // the flag inverted (true means non-blocking), and pg_connection_busy() switches back
            // to blocking, so this is set per send. Small statements never need it.
            stream_set_blocking($this->socket, true);
        }
        $sent = match ($statement->kind) {
            self::SIMPLE => @pg_send_query($this->link, $statement->sql),
            self::PARAMS => @pg_send_query_params($this->link, $statement->sql, $statement->params),
            self::PREPARE => @pg_send_prepare($this->link, $statement->name, $statement->sql),
            default => @pg_send_execute($this->link, $statement->name, $statement->params),
        };
        if ($sent === false) {
            $message = trim(pg_last_error($this->link));
            if (pg_connection_status($this->link) !== \PGSQL_CONNECTION_OK) {
                $error = new PgConnectionException("The connection to PostgreSQL was lost: {$message}");
                $this->settle($statement, $error, null);
                $this->fail($error);
            } else {
                $this->settle($statement, new PgQueryException("Could not send the statement: {$message}", '', $message, sql: $statement->sql), null);
            }

            return;
        }
        $this->current = $statement;
        if ($this->durations !== null) {
            $this->sentAt = hrtime(true);
        }
        if ($sent === 0) {
            $this->writeWatcher = $this->loop->onWritable($this->socket, function (): void {
                $this->flush();
            });
        }
        if (!$this->referenced) {
            $this->referenced = true;
            $this->loop->reference($this->readWatcher);
        }
        if ($this->config->queryTimeout !== null) {
            $this->startedAt = $this->loop->now();
            if ($this->deadlineTimer === null) {
                $this->armDeadline($this->config->queryTimeout);
            }
        }
    }

    /**
     * One timer per connection, not one per statement: when it fires it checks the statement
     * running then, and sleeps again until that one's deadline.
     */
    private function armDeadline(float $seconds): void
    {
        $this->deadlineTimer = $this->loop->delay($seconds, function (): void {
            $this->deadlineTimer = null;
            $timeout = $this->config->queryTimeout;
            if ($this->current === null || $this->closed || $timeout === null) {
                return;
            }
            $left = $this->startedAt + $timeout - $this->loop->now();
            if ($left > 0.0) {
                $this->armDeadline($left);
            } elseif (!$this->timedOut) {
                $this->timedOut = true;
                $this->cancelOnServer();
            }
        });
        // The read watcher keeps the loop going while a statement runs; this timer must not keep
        // it going once the connection is idle.
        $this->loop->unreference($this->deadlineTimer);
    }

    private function flush(): void
    {
        $flushed = pg_flush($this->link);
        if ($flushed === 0) {
            return;
        }
        if ($this->writeWatcher !== null) {
            $this->loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        }
        if ($flushed === false) {
            $this->fail(new PgConnectionException('The connection to PostgreSQL was lost while sending: ' . trim(pg_last_error($this->link))));

            return;
        }
        $this->process();
    }

    private function onReadable(): void
    {
        if (!pg_consume_input($this->link)) {
            $this->fail(new PgConnectionException('The connection to PostgreSQL was lost: ' . trim(pg_last_error($this->link))));

            return;
        }
        if ($this->writeWatcher === null) {
            // While a send is still flushing, pg_connection_busy() would fail to restore blocking
            // mode (and say so): results are read once the flush is done.
            $this->process();
        }
    }

    private function process(): void
    {
        if ($this->current !== null) {
            // pg_connection_busy() toggles libpq's blocking mode around PQisBusy() and complains
            // when it cannot (a connection the server just ended): the answer is still right.
            while (!@pg_connection_busy($this->link)) {
                $result = pg_get_result($this->link);
                if ($result === false) {
                    $this->complete();
                    break;
                }
                $status = pg_result_status($result);
                if ($status === \PGSQL_FATAL_ERROR || $status === \PGSQL_BAD_RESPONSE || $status === \PGSQL_NONFATAL_ERROR) {
                    $this->error ??= $this->queryError($result, $this->current->sql);
                } elseif ($status === \PGSQL_COPY_IN || $status === \PGSQL_COPY_OUT) {
                    // The client does not speak COPY: ending the connection is the only clean way out.
                    $this->fail(new PgConnectionException('COPY is not supported by this client; the connection was closed.'));

                    return;
                } else {
                    $this->lastResult = $result;
                }
            }
        } elseif (pg_connection_status($this->link) !== \PGSQL_CONNECTION_OK) {
            $this->fail(new PgConnectionException('The connection to PostgreSQL was lost: ' . trim(pg_last_error($this->link))));

            return;
        }
        if ($this->listeners !== []) {
            $this->dispatchNotifications();
        }
    }

    private function complete(): void
    {
        $statement = $this->current;
        \assert($statement !== null);
        $this->current = null;
        $this->durations?->observe((hrtime(true) - $this->sentAt) / 1e9);
        if ($this->cancelTimer !== null) {
            $this->loop->cancel($this->cancelTimer);
            $this->cancelTimer = null;
        }
        $error = $this->error;
        $result = $this->lastResult;
        $this->error = $this->lastResult = null;
        if ($this->timedOut) {
            $this->timedOut = false;
            if ($error !== null && $error->sqlState === '57014') {
                $error = new PgQueryTimeoutException(
                    sprintf('The query ran longer than the query timeout of %.3f s and was cancelled on the server; raise queryTimeout or make the query faster. Query: %s', $this->config->queryTimeout ?? 0.0, self::excerpt($statement->sql)),
                    '57014',
                    $error->serverMessage,
                    sql: $statement->sql,
                    previous: $error,
                );
            }
        }
        if ($error === null && $result !== null && $statement->subscription === null) {
            // The common case, without the detour through settle().
            $statement->deferred->tryResolve(new PgResult($result));
        } elseif ($error !== null) {
            $this->settle($statement, $error, null);
        } elseif ($result !== null) {
            $this->settle($statement, null, new PgResult($result));
        } else {
            $this->settle($statement, new PgQueryException('PostgreSQL returned no result for the statement.', '', sql: $statement->sql), null);
        }
        $this->next();
    }

    /**
     * Settles a statement's future unless its cancellation already did, and forgets the
     * subscription.
     */
    private function settle(PendingStatement $statement, ?\Throwable $error, mixed $value): void
    {
        if ($statement->subscription !== null) {
            $statement->cancellation?->unsubscribe($statement->subscription);
            $statement->subscription = null;
        }
        if ($error !== null) {
            $statement->deferred->tryReject($error);
        } else {
            $statement->deferred->tryResolve($value);
        }
    }

    private function next(): void
    {
        while ($this->current === null && $this->head !== $this->tail && !$this->cancelling && !$this->closed) {
            $statement = $this->queue[$this->head];
            unset($this->queue[$this->head++]);
            if (!$statement->cancelled) {
                $this->start($statement);
            }
        }
        if ($this->head === $this->tail) {
            $this->head = $this->tail = 0;
        }
        $this->updateReference();
    }

    /**
     * A statement's cancellation was requested: it fails now with the CancelledException. Queued
     * or held, it is skipped; running, it is cancelled on the server (the statements behind it
     * wait until the cancel has been delivered, so that it cannot hit them).
     */
    private function cancel(PendingStatement $statement, CancelledException $reason): void
    {
        $statement->subscription = null;
        if ($statement->deferred->isSettled()) {
            return;
        }
        $statement->deferred->reject($reason);
        if ($statement === $this->current) {
            $this->cancelOnServer();
        } else {
            $statement->cancelled = true;
        }
    }

    private function updateReference(): void
    {
        $wanted = $this->current !== null || $this->listeners !== [] || $this->cancelling;
        if ($wanted !== $this->referenced && !$this->closed) {
            $this->referenced = $wanted;
            if ($wanted) {
                $this->loop->reference($this->readWatcher);
            } else {
                $this->loop->unreference($this->readWatcher);
            }
        }
    }

    /**
     * Cancels the running statement on the server from a second, short-lived connection (libpq's
     * own cancel request would block). The statement's result, an error 57014 or a late success,
     * completes it as usual; the next queued statement waits until the cancel has been delivered,
     * so that it cannot hit that one.
     */
    private function cancelOnServer(): void
    {
        if ($this->current === null || $this->closed || $this->cancelling) {
            return;
        }
        $this->cancelling = true;
        $this->updateReference();
        $pid = $this->pid;
        self::connectAsync($this->loop, $this->config->withQueryTimeout(null))->onSettle(function (?\Throwable $error, mixed $canceller) use ($pid): void {
            if (!$canceller instanceof self) {
                $this->cancelling = false;
                $this->fail(new PgConnectionException('A statement had to be cancelled (timeout or cancellation) and could not be (no second connection): ' . ($error?->getMessage() ?? '') . ' The connection was closed.'));

                return;
            }
            $canceller->queryAsync('SELECT pg_cancel_backend($1)', [$pid])->onSettle(function (?\Throwable $error) use ($canceller): void {
                $canceller->close();
                $this->cancelling = false;
                if ($error !== null) {
                    $this->fail(new PgConnectionException('A statement had to be cancelled (timeout or cancellation) and the cancel failed: ' . $error->getMessage() . ' The connection was closed.'));

                    return;
                }
                if ($this->current !== null && !$this->closed) {
                    // The server must answer a cancelled query promptly; if it does not, give up on the connection.
                    $this->cancelTimer = $this->loop->delay($this->config->connectTimeout, function (): void {
                        $this->cancelTimer = null;
                        $this->fail(new PgConnectionException('A statement was cancelled and the server did not end it within the connect timeout; the connection was closed.'));
                    });
                }
                $this->next();
            });
        });
    }

    /**
     * @template R
     *
     * @param callable(self): R $work
     *
     * @return R
     */
    private function runTransaction(callable $work): mixed
    {
        // BEGIN, COMMIT and ROLLBACK run under no cancellation: a cancelled caller still leaves
        // the connection outside a transaction.
        $this->submit(self::SIMPLE, 'BEGIN', [], '', null)->await();
        try {
            $result = $work($this);
            if ($this->transactionStatus() === \PGSQL_TRANSACTION_INERROR) {
                throw new PgQueryException(
                    'A statement inside the transaction failed and its error was caught, so the transaction was rolled back instead of committed. Let the error escape the transaction callable, or use a SAVEPOINT.',
                    '25P02',
                    'current transaction is aborted',
                );
            }
        } catch (\Throwable $e) {
            if (!$this->closed) {
                try {
                    $this->submit(self::SIMPLE, 'ROLLBACK', [], '', null)->await();
                } catch (\Throwable) {
                    // The original failure is what the caller needs; a broken connection shows on its next use.
                }
            }

            throw $e;
        }
        $this->submit(self::SIMPLE, 'COMMIT', [], '', null)->await();

        return $result;
    }

    /**
     * Waits until the transaction running now, and those that asked before, have ended; this
     * caller then owns the connection.
     */
    private function waitForTransactionTurn(object $me): void
    {
        /** @var Deferred<mixed> $turn */
        $turn = new Deferred($this->loop);
        $entry = new PendingStatement();
        $entry->kind = self::TRANSACTION;
        $entry->deferred = $turn;
        $entry->owner = $me;
        $this->held[] = $entry;
        try {
            $turn->future()->await();
        } catch (\Throwable $e) {
            if ($this->transactionOwner === $me) {
                // The turn came as the wait gave up: pass it on.
                $this->endTransaction();
            } else {
                $entry->cancelled = true;
            }

            throw $e;
        }
        if ($this->closed) {
            throw new PgConnectionException('The PostgreSQL connection was closed while this transaction waited for another to end.');
        }
    }

    /**
     * The transaction ended: the statements held meanwhile run in order, up to the next
     * transaction waiting to start, which then owns the connection.
     */
    private function endTransaction(): void
    {
        $this->transactionOwner = null;
        while ($this->held !== []) {
            $statement = array_shift($this->held);
            if ($statement->cancelled) {
                continue;
            }
            if ($statement->kind === self::TRANSACTION) {
                $this->transactionOwner = $statement->owner;
                $statement->deferred->resolve(null);

                return;
            }
            if ($this->closed) {
                $this->settle($statement, new PgConnectionException('The PostgreSQL connection was closed while this statement waited for a transaction to end.'), null);
            } elseif ($this->current === null && $this->head === $this->tail && !$this->cancelling) {
                $this->start($statement);
            } else {
                $this->queue[$this->tail++] = $statement;
            }
        }
    }

    private function dispatchNotifications(): void
    {
        while (($notify = pg_get_notify($this->link, \PGSQL_ASSOC)) !== false) {
            $channel = (string) $notify['message'];
            $notification = new PgNotification($channel, (string) ($notify['payload'] ?? ''), (int) $notify['pid']);
            foreach ($this->listeners[$channel] ?? [] as $listener) {
                try {
                    $listener($notification);
                } catch (\Throwable $e) {
                    $this->loop->reportError($e);
                }
            }
        }
    }

    private function fail(PgConnectionException $reason): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->loop->cancel($this->readWatcher);
        foreach ([$this->writeWatcher, $this->deadlineTimer, $this->cancelTimer] as $id) {
            if ($id !== null) {
                $this->loop->cancel($id);
            }
        }
        $this->writeWatcher = $this->deadlineTimer = $this->cancelTimer = null;
        $pending = [];
        if ($this->current !== null) {
            $this->durations?->observe((hrtime(true) - $this->sentAt) / 1e9);
            $pending[] = $this->current;
            $this->current = null;
        }
        for ($i = $this->head; $i < $this->tail; ++$i) {
            $pending[] = $this->queue[$i];
        }
        $this->queue = [];
        $this->head = $this->tail = 0;
        $held = $this->held;
        $this->held = [];
        $this->listeners = [];
        $this->lastResult = $this->error = null;
        pg_close($this->link);
        foreach ($pending as $statement) {
            $this->settle($statement, $reason, null);
        }
        foreach ($held as $statement) {
            if ($statement->kind === self::TRANSACTION) {
                // It wakes up, finds the connection closed and says so.
                $statement->deferred->tryResolve(null);
            } else {
                $this->settle($statement, $reason, null);
            }
        }
    }

    private function queryError(Result $result, string $sql): PgQueryException
    {
        $sqlState = (string) pg_result_error_field($result, \PGSQL_DIAG_SQLSTATE);
        $primary = (string) pg_result_error_field($result, \PGSQL_DIAG_MESSAGE_PRIMARY);
        $detail = pg_result_error_field($result, \PGSQL_DIAG_MESSAGE_DETAIL);
        $hint = pg_result_error_field($result, \PGSQL_DIAG_MESSAGE_HINT);
        $constraint = pg_result_error_field($result, \PGSQL_DIAG_CONSTRAINT_NAME);
        if ($primary === '') {
            $primary = trim((string) pg_result_error($result));
        }
        $message = "PostgreSQL error {$sqlState}: {$primary}";
        if (\is_string($detail) && $detail !== '') {
            $message .= " ({$detail})";
        }
        if (\is_string($hint) && $hint !== '') {
            $message .= " Hint: {$hint}";
        }
        $message .= ' Query: ' . self::excerpt($sql);
        $class = PgServerUnavailableException::isTransient($sqlState) ? PgServerUnavailableException::class : PgQueryException::class;

        return new $class(
            $message,
            $sqlState,
            $primary,
            \is_string($detail) ? $detail : null,
            \is_string($hint) ? $hint : null,
            \is_string($constraint) ? $constraint : null,
            $sql,
        );
    }

    /**
     * @throws PgException
     */
    private function identifier(string $name): string
    {
        $quoted = str_contains($name, "\0") ? false : pg_escape_identifier($this->link, $name);
        if ($quoted === false) {
            throw new PgParameterException("\"{$name}\" cannot be used as a PostgreSQL identifier.");
        }

        return $quoted;
    }

    private static function excerpt(string $sql): string
    {
        return \strlen($sql) > 200 ? substr($sql, 0, 200) . '...' : $sql;
    }
}
