<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\Exception\PgParameterException;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\Exception\PgQueryTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use PgSql\Connection;
use PgSql\Result;

/**
 * One PostgreSQL connection driven by the loop through libpq's asynchronous API: nothing here
 * waits on the socket. One statement runs at a time; calls made while one runs queue in order.
 *
 * Blocking-style methods (query, prepare, transaction, ...) await: inside a fiber (an actor or an
 * HTTP handler) they suspend only that fiber, from top-level code they run the loop. The *Async
 * methods return a Future instead.
 */
final class PgConnection
{
    private const SIMPLE = 0;
    private const PARAMS = 1;
    private const PREPARE = 2;
    private const EXECUTE = 3;
    private const MARKER = 4;
    /** statements above this many bytes are sent with libpq in non-blocking mode */
    private const LARGE = 65536;

    /** @var resource */
    private readonly mixed $socket;
    private readonly int $pid;
    private readonly int $readWatcher;
    private ?int $writeWatcher = null;
    private bool $referenced = false;
    private bool $closed = false;

    /** @var Deferred<mixed>|null the statement in flight */
    private ?Deferred $current = null;
    private string $currentSql = '';
    private ?Result $lastResult = null;
    private ?PgQueryException $error = null;
    private ?int $timer = null;
    private bool $timedOut = false;
    private bool $cancelling = false;

    /** @var array<int, array{int, string, array<mixed>, string, Deferred<mixed>}> */
    private array $queue = [];
    private int $head = 0;
    private int $tail = 0;

    /** @var array<string, list<\Closure(PgNotification): void>> */
    private array $listeners = [];
    private int $statements = 0;

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
     * Opens a connection and waits until it is ready.
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
     * @param array<mixed> $params
     */
    public function query(string $sql, array $params = []): PgResult
    {
        return $this->queryAsync($sql, $params)->await();
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function queryAsync(string $sql, array $params = []): Future
    {
        /** @var Future<PgResult> */
        return $this->submit($params === [] ? self::SIMPLE : self::PARAMS, $sql, $params, '');
    }

    /**
     * Prepares a statement on this connection (server side) for repeated execution.
     */
    public function prepare(string $sql): PgStatement
    {
        $name = 'nexus_' . ++$this->statements;
        $this->submit(self::PREPARE, $sql, [], $name)->await();

        return new PgStatement($this, $name, $sql);
    }

    /**
     * @internal use PgStatement::execute()
     *
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function executeAsync(string $statementName, array $params, string $sql): Future
    {
        /** @var Future<PgResult> */
        return $this->submit(self::EXECUTE, $sql, $params, $statementName);
    }

    /**
     * BEGIN, $work($this), COMMIT; on an exception ROLLBACK and rethrow. Returns what $work returns.
     *
     * @template R
     *
     * @param callable(self): R $work
     *
     * @return R
     */
    public function transaction(callable $work): mixed
    {
        $this->query('BEGIN');
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
                    $this->query('ROLLBACK');
                } catch (\Throwable) {
                    // The original failure is what the caller needs; a broken connection shows on its next use.
                }
            }

            throw $e;
        }
        $this->query('COMMIT');

        return $result;
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

    /**
     * PGSQL_TRANSACTION_IDLE, _ACTIVE, _INTRANS, _INERROR or _UNKNOWN, as of the last result.
     */
    public function transactionStatus(): int
    {
        return $this->closed ? \PGSQL_TRANSACTION_UNKNOWN : pg_transaction_status($this->link);
    }

    /**
     * No statement running or queued.
     */
    public function isIdle(): bool
    {
        return $this->current === null && $this->head === $this->tail && !$this->cancelling;
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
        return $this->submit(self::MARKER, '', [], '');
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
    private function submit(int $kind, string $sql, array $params, string $name): Future
    {
        /** @var Deferred<mixed> $deferred */
        $deferred = new Deferred($this->loop);
        if ($this->closed) {
            $deferred->reject(new PgConnectionException('This PostgreSQL connection is closed; open a new one (a PgPool replaces broken connections by itself).'));
        } elseif ($this->current === null && $this->head === $this->tail && !$this->cancelling) {
            $this->start($kind, $sql, $params, $name, $deferred);
        } else {
            $this->queue[$this->tail++] = [$kind, $sql, $params, $name, $deferred];
        }

        return $deferred->future();
    }

    /**
     * @param array<mixed>    $params
     * @param Deferred<mixed> $deferred
     */
    private function start(int $kind, string $sql, array $params, string $name, Deferred $deferred): void
    {
        if ($kind === self::MARKER) {
            $deferred->resolve(null);

            return;
        }
        $size = \strlen($sql);
        if ($params !== []) {
            foreach ($params as $i => $value) {
                if (\is_string($value)) {
                    $size += \strlen($value);
                } elseif ($value !== null && !\is_int($value)) {
                    $size += \strlen($params[$i] = self::encode($value));
                }
            }
        }
        if ($size > self::LARGE) {
            // A large statement may not fit the socket buffer. In blocking mode pg_send_* would
            // flush it in a sleep loop; in non-blocking mode it returns 0 and the rest is flushed
            // on writability. ext-pgsql maps stream_set_blocking() onto PQsetnonblocking() with
            // the flag inverted (true means non-blocking), and pg_connection_busy() switches back
            // to blocking, so this is set per send. Small statements never need it.
            stream_set_blocking($this->socket, true);
        }
        $sent = match ($kind) {
            self::SIMPLE => @pg_send_query($this->link, $sql),
            self::PARAMS => @pg_send_query_params($this->link, $sql, $params),
            self::PREPARE => @pg_send_prepare($this->link, $name, $sql),
            default => @pg_send_execute($this->link, $name, $params),
        };
        if ($sent === false) {
            $message = trim(pg_last_error($this->link));
            if (pg_connection_status($this->link) !== \PGSQL_CONNECTION_OK) {
                $this->fail(new PgConnectionException("The connection to PostgreSQL was lost: {$message}"));
                $deferred->tryReject(new PgConnectionException("The connection to PostgreSQL was lost: {$message}"));
            } else {
                $deferred->reject(new PgQueryException("Could not send the statement: {$message}", '', $message, sql: $sql));
            }

            return;
        }
        $this->current = $deferred;
        $this->currentSql = $sql;
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
            $this->timer = $this->loop->delay($this->config->queryTimeout, function (): void {
                $this->timer = null;
                $this->onTimeout();
            });
        }
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
                    $this->error ??= $this->queryError($result);
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
        $deferred = $this->current;
        \assert($deferred !== null);
        $this->current = null;
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
        $error = $this->error;
        $result = $this->lastResult;
        $this->error = $this->lastResult = null;
        if ($this->timedOut) {
            $this->timedOut = false;
            if ($error !== null && $error->sqlState === '57014') {
                $error = new PgQueryTimeoutException(
                    sprintf('The query ran longer than the query timeout of %.3f s and was cancelled on the server; raise queryTimeout or make the query faster. Query: %s', $this->config->queryTimeout ?? 0.0, self::excerpt($this->currentSql)),
                    '57014',
                    $error->serverMessage,
                    sql: $this->currentSql,
                    previous: $error,
                );
            }
        }
        if ($error !== null) {
            $deferred->reject($error);
        } elseif ($result !== null) {
            $deferred->resolve(new PgResult($result));
        } else {
            $deferred->reject(new PgQueryException('PostgreSQL returned no result for the statement.', '', sql: $this->currentSql));
        }
        $this->next();
    }

    private function next(): void
    {
        while ($this->current === null && $this->head !== $this->tail && !$this->cancelling && !$this->closed) {
            [$kind, $sql, $params, $name, $deferred] = $this->queue[$this->head];
            unset($this->queue[$this->head++]);
            $this->start($kind, $sql, $params, $name, $deferred);
        }
        if ($this->head === $this->tail) {
            $this->head = $this->tail = 0;
        }
        $this->updateReference();
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
     * The query ran too long: cancel it on the server from a second, short-lived connection
     * (libpq's own cancel request would block). The statement's result, an error 57014 or a
     * late success, completes it as usual; the next queued statement waits until the cancel has
     * been delivered, so that it cannot hit that one.
     */
    private function onTimeout(): void
    {
        if ($this->current === null || $this->closed) {
            return;
        }
        $this->timedOut = true;
        $this->cancelling = true;
        $this->updateReference();
        $pid = $this->pid;
        self::connectAsync($this->loop, $this->config->withQueryTimeout(null))->onSettle(function (?\Throwable $error, mixed $canceller) use ($pid): void {
            if (!$canceller instanceof self) {
                $this->cancelling = false;
                $this->fail(new PgConnectionException('The query timed out and could not be cancelled (no second connection): ' . ($error?->getMessage() ?? '') . ' The connection was closed.'));

                return;
            }
            $canceller->queryAsync('SELECT pg_cancel_backend($1)', [$pid])->onSettle(function (?\Throwable $error) use ($canceller): void {
                $canceller->close();
                $this->cancelling = false;
                if ($error !== null) {
                    $this->fail(new PgConnectionException('The query timed out and the cancel failed: ' . $error->getMessage() . ' The connection was closed.'));

                    return;
                }
                if ($this->current !== null && !$this->closed) {
                    // The server must answer a cancelled query promptly; if it does not, give up on the connection.
                    $this->timer = $this->loop->delay($this->config->connectTimeout, function (): void {
                        $this->timer = null;
                        $this->fail(new PgConnectionException('The query timed out and the server did not end it after the cancel; the connection was closed.'));
                    });
                }
                $this->next();
            });
        });
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
        if ($this->writeWatcher !== null) {
            $this->loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        }
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
        $pending = [];
        if ($this->current !== null) {
            $pending[] = $this->current;
            $this->current = null;
        }
        for ($i = $this->head; $i < $this->tail; ++$i) {
            $pending[] = $this->queue[$i][4];
        }
        $this->queue = [];
        $this->head = $this->tail = 0;
        $this->listeners = [];
        $this->lastResult = $this->error = null;
        pg_close($this->link);
        foreach ($pending as $deferred) {
            $deferred->tryReject($reason);
        }
    }

    private function queryError(Result $result): PgQueryException
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
        $message .= ' Query: ' . self::excerpt($this->currentSql);

        return new PgQueryException(
            $message,
            $sqlState,
            $primary,
            \is_string($detail) ? $detail : null,
            \is_string($hint) ? $hint : null,
            \is_string($constraint) ? $constraint : null,
            $this->currentSql,
        );
    }

    private function identifier(string $name): string
    {
        $quoted = pg_escape_identifier($this->link, $name);
        if ($quoted === false) {
            throw new PgParameterException("\"{$name}\" cannot be used as a PostgreSQL identifier.");
        }

        return $quoted;
    }

    private static function encode(mixed $value): string
    {
        return match (true) {
            \is_bool($value) => $value ? 't' : 'f',
            \is_float($value) => is_nan($value) ? 'NaN' : (is_infinite($value) ? ($value > 0 ? 'Infinity' : '-Infinity') : var_export($value, true)),
            \is_array($value), $value instanceof \JsonSerializable => json_encode($value, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION),
            $value instanceof \DateTimeInterface => $value->format('Y-m-d H:i:s.uP'),
            $value instanceof \BackedEnum => (string) $value->value,
            $value instanceof \Stringable => (string) $value,
            default => throw new PgParameterException(sprintf('A query parameter of type %s has no PostgreSQL form; pass a string, int, float, bool, null, array (sent as JSON), DateTimeInterface, BackedEnum or Stringable.', get_debug_type($value))),
        };
    }

    private static function excerpt(string $sql): string
    {
        return \strlen($sql) > 200 ? substr($sql, 0, 200) . '...' : $sql;
    }
}
