<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\HttpDate;
use Nexus\Http\Parser\RequestParser;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use Nexus\Io\Connection;
use Nexus\Io\Exception\ListenException;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Scheduler;
use Psr\Log\LoggerInterface;

/**
 * An HTTP/1.1 server on the loop: keep-alive, pipelining (responses in request order), chunked
 * request bodies, streamed responses, 100-continue, limits and timeouts from ServerOptions.
 *
 * Each request runs as a Runnable on the loop's scheduler, so a handler that awaits (an actor's
 * reply, a query) gets a fiber of its own while the other requests go on; a handler that does not
 * wait costs no fiber at all.
 *
 * One sweep timer (at most a second apart) checks every connection's deadline and the time limit
 * of every handler that waits; no timer is made per request. The bytes of requests received and
 * not answered yet are counted over all connections against ServerOptions::$maxBufferedTotal.
 *
 * A connection whose upgrade request was answered 101 (a WebSocket route) leaves the HTTP side:
 * the server keeps its Upgraded (adopt(), release()), counts it against maxConnections and ends
 * it on stop(), and the new protocol times it.
 */
final class HttpServer
{
    /** Most idle parsers kept for the next connection that keeps one (the rest are freed). */
    private const IDLE_PARSERS = 32;

    /** @var list<Listener> */
    private array $listeners = [];
    /** @var array<int, ServerConnection> */
    private array $connections = [];
    private ?int $sweepTimer = null;
    private ?int $stopTimer = null;
    private bool $listenersPaused = false;
    /** @var Deferred<null>|null */
    private ?Deferred $stopped = null;
    /** @internal responses written so far (requestsServed()); counted by ServerConnection */
    public int $served = 0;
    /** Bytes of requests received and not answered yet, over all connections. */
    private int $buffered = 0;
    /**
     * @internal $buffered is above ServerOptions::$maxBufferedTotal (read on every update of a
     *           connection, so a property rather than a call)
     */
    public bool $overBudget = false;
    /** @var array<int, ServerConnection> connections not read from until $buffered is below the bound */
    private array $budgetWaiters = [];
    /** @var array<int, RequestTask> requests whose handler waits: their deadlines are swept */
    private array $waitingHandlers = [];
    /** ServerOptions::$maxConnections, or what the loop's driver can hold */
    private readonly int $maxConnections;
    /** @var array<string, bool> Host header values already checked against ServerOptions::$allowedHosts */
    private array $hostVerdicts = [];
    private readonly Scheduler $scheduler;
    /** @var array<int, Upgraded> connections that switched protocols (WebSocket), until they close */
    private array $upgraded = [];
    /**
     * @internal the parser a connection without one feeds what it received: most requests arrive
     *           whole, and the parser is idle again after them (RequestParser::isIdle()); one that
     *           holds part of a request is kept by its connection (keepParser())
     */
    public RequestParser $parser;
    /** @var list<RequestParser> idle parsers given back by connections (at most IDLE_PARSERS) */
    private array $idleParsers = [];
    private int $parsersCreated = 1;
    /**
     * @internal whole requests seen before, by their exact bytes: a connection with nothing in
     *           progress that receives exactly these bytes takes a clone of the request instead of
     *           parsing them (ServerConnection::dataReceived()). Only plain ones: no body, HTTP/1.1,
     *           keep-alive, not HEAD, no upgrade; at most PROTOTYPES of them, up to
     *           PROTOTYPE_MAX_BYTES each (emptied when full). The same bytes parse the same way under
     *           the same limits, so a clone is what the parser would give.
     *
     * @var array<string, Request>
     */
    public array $prototypes = [];
    /** @internal the bytes of the request remembered last, compared before the lookup */
    public string $lastHead = '';
    /** @internal the request remembered last (for $lastHead) */
    public ?Request $lastPrototype = null;
    /**
     * @internal a fast request (see $prototypes) of fewer bytes than this leaves the connection
     *           reading (ServerOptions::$maxBufferedPerConnection, or 0 when maxPipelined is 1:
     *           one request in progress already stops reading)
     */
    public readonly int $fastLimit;
    /** The longest response (head and body) kept with the response object it was written for. */
    public const REMEMBERED_RESPONSE_MAX = 16 * 1024;
    /** @internal the response a fast request got last (see ServerConnection::run()), the second it was written in and its bytes (up to REMEMBERED_RESPONSE_MAX) */
    public ?Response $lastResponse = null;
    /** @internal */
    public int $lastSecond = 0;
    /** @internal */
    public string $lastBytes = '';
    /** Most whole requests remembered (see $prototypes). */
    private const PROTOTYPES = 64;
    /** The longest request remembered, in bytes. */
    public const PROTOTYPE_MAX_BYTES = 2048;

    public function __construct(
        private readonly Loop $loop,
        /** @internal */
        public readonly RequestHandler $handler,
        private readonly ServerOptions $options = new ServerOptions(),
        /** @internal */
        public readonly ?LoggerInterface $logger = null,
    ) {
        $this->maxConnections = $options->maxConnections ?? Listener::capacity($loop);
        $this->scheduler = $loop->scheduler();
        $this->parser = new RequestParser($options->limits);
        $this->fastLimit = $options->maxPipelined > 1 ? $options->maxBufferedPerConnection : 0;
    }

    /**
     * Starts accepting on $address (tcp://127.0.0.1:8080, port 0 picks a free one, or
     * unix:///path); may be called for several addresses. ServerOptions::$maxConnections caps the
     * connections over all of them.
     *
     * @throws ListenException when the address cannot be bound
     * @throws ServerStoppedException after stop()
     */
    public function listen(string $address, ListenOptions $listenOptions = new ListenOptions()): void
    {
        if ($this->stopped !== null) {
            throw new ServerStoppedException("Cannot listen on {$address}: the server was stopped; create a new HttpServer.");
        }
        $listenOptions = new ListenOptions(
            $listenOptions->backlog,
            $listenOptions->reusePort,
            min($listenOptions->maxConnections ?? \PHP_INT_MAX, $this->maxConnections),
            $listenOptions->tcpNoDelay,
            $listenOptions->acceptBatch,
            $listenOptions->writeHighWaterMark,
            $listenOptions->acceptBackoff,
            $listenOptions->reservedDescriptors,
        );
        $this->serve(Listener::listen($this->loop, $address, $listenOptions, $this->logger));
    }

    /**
     * Serves connections from a listener made elsewhere, such as one on a socket inherited from
     * the worker pool's master (Listener::fromSocket()).
     */
    public function serve(Listener $listener): void
    {
        if ($this->stopped !== null) {
            throw new ServerStoppedException("Cannot serve {$listener->address()}: the server was stopped; create a new HttpServer.");
        }
        $listener->onConnection(function (Connection $connection): void {
            $this->accept($connection);
        });
        $this->listeners[] = $listener;
        if ($this->sweepTimer === null) {
            $o = $this->options;
            $interval = max(0.01, min(1.0, min($o->headerTimeout, $o->keepAliveTimeout, $o->lingerTimeout, $o->bodyTimeout, $o->handlerTimeout, $o->sendTimeout) / 4));
            $this->sweepTimer = $this->loop->repeat($interval, function (): void {
                $this->sweep();
            });
            $this->loop->unreference($this->sweepTimer);
        }
        if ($this->listenersPaused) {
            $listener->pause();
        }
    }

    /**
     * The first address listened on, with the real port: tcp://127.0.0.1:40123.
     */
    public function address(): string
    {
        $listener = $this->listeners[0] ?? throw new \LogicException('The server is not listening yet: call listen() first.');

        return $listener->address();
    }

    /**
     * Every address listened on, in the order listen() was called.
     *
     * @return list<string>
     */
    public function addresses(): array
    {
        return array_map(static fn(Listener $listener): string => $listener->address(), $this->listeners);
    }

    /**
     * Open connections at most over all listeners (ServerOptions::$maxConnections, by default
     * what the loop's driver can hold).
     */
    public function maxConnections(): int
    {
        return $this->maxConnections;
    }

    public function connectionCount(): int
    {
        return \count($this->connections) + \count($this->upgraded);
    }

    /**
     * Connections that switched protocols (WebSocket) and are still open; they count in
     * connectionCount() too.
     */
    public function upgradedCount(): int
    {
        return \count($this->upgraded);
    }

    /**
     * Bytes of requests received and not answered yet, over all connections (requests waiting for
     * or in a handler, bytes in the parsers, and the rest of declared bodies being received).
     */
    public function bufferedBytes(): int
    {
        return $this->buffered;
    }

    /**
     * Responses written so far (including error responses such as 400 and 408).
     */
    public function requestsServed(): int
    {
        return $this->served;
    }

    /**
     * Stops accepting (new connections are refused), lets the requests in progress finish and be
     * written (their last response says Connection: close), closes idle connections at once (or,
     * with an $idleGrace, once they have been idle that long, answering a request that arrives
     * meanwhile) and whatever is left after $deadline seconds. The future settles when every connection is
     * closed. Calling it again returns the same future.
     *
     * @return Future<null>
     */
    public function stop(float $deadline = 10.0, float $idleGrace = 0.0): Future
    {
        if ($this->stopped !== null) {
            return $this->stopped->future();
        }
        /** @var Deferred<null> $stopped */
        $stopped = new Deferred($this->loop);
        $this->stopped = $stopped;
        foreach ($this->listeners as $listener) {
            $listener->close();
        }
        foreach ($this->connections as $connection) {
            $connection->drain($idleGrace);
        }
        foreach ($this->upgraded as $upgraded) {
            $upgraded->shutdown();
        }
        if ($this->connections === [] && $this->upgraded === []) {
            $this->settleStop();
        } else {
            $this->stopTimer = $this->loop->delay(max(0.0, $deadline), function (): void {
                $this->stopTimer = null;
                foreach ($this->connections as $connection) {
                    $connection->close();
                }
                foreach ($this->upgraded as $upgraded) {
                    $upgraded->abort();
                }
            });
        }

        return $stopped->future();
    }

    /**
     * @internal
     */
    public function dispatch(RequestTask $task): void
    {
        $this->scheduler->schedule($task);
    }

    /**
     * @internal a connection's count of buffered bytes changed by $delta
     */
    public function charge(int $delta): void
    {
        if (($this->buffered += $delta) > $this->options->maxBufferedTotal) {
            if (!$this->overBudget) {
                $this->overBudget = true;
            }
        } elseif ($this->overBudget) {
            // Connections wait for the budget only while it is exceeded (waitForBudget()).
            $this->overBudget = false;
            $waiters = $this->budgetWaiters;
            $this->budgetWaiters = [];
            foreach ($waiters as $connection) {
                $connection->budgetFreed();
            }
        }
    }

    /**
     * @internal for ServerConnection: $bytes were exactly one plain request (see $prototypes),
     *           parsed into $request (not handed out yet: a clone of it is remembered)
     */
    public function remember(string $bytes, Request $request): void
    {
        if (\strlen($bytes) > self::PROTOTYPE_MAX_BYTES || isset($this->prototypes[$bytes])) {
            return;
        }
        if (\count($this->prototypes) >= self::PROTOTYPES) {
            $this->prototypes = [];
        }
        $prototype = clone $request;
        $this->prototypes[$bytes] = $prototype;
        $this->lastHead = $bytes;
        $this->lastPrototype = $prototype;
    }

    /**
     * @internal $connection stopped reading for the total budget: budgetFreed() once it is below
     */
    public function waitForBudget(ServerConnection $connection): void
    {
        $this->budgetWaiters[spl_object_id($connection)] = $connection;
    }

    /**
     * @internal the handler of $task waits (its deadline is swept) or no longer
     */
    public function watchHandler(RequestTask $task, bool $waits): void
    {
        if ($waits) {
            $this->waitingHandlers[spl_object_id($task)] = $task;
        } else {
            unset($this->waitingHandlers[spl_object_id($task)]);
        }
    }

    /**
     * @internal whether the request names a host in ServerOptions::$allowedHosts (the Host header
     *           without its port, any case, without a trailing dot)
     */
    public function allowsHost(Request $request): bool
    {
        $host = $request->header('host') ?? '';
        $verdict = $this->hostVerdicts[$host] ?? null;
        if ($verdict === null) {
            $name = strtolower($host);
            if (str_starts_with($name, '[')) {
                $end = strpos($name, ']');
                $name = $end === false ? $name : substr($name, 0, $end + 1);
            } elseif (($colon = strrpos($name, ':')) !== false) {
                $name = substr($name, 0, $colon);
            }
            $verdict = \in_array(rtrim($name, '.'), $this->options->allowedHosts ?? [], true);
            if (\count($this->hostVerdicts) >= 64) {
                $this->hostVerdicts = [];
            }
            $this->hostVerdicts[$host] = $verdict;
        }

        return $verdict;
    }

    /**
     * @internal
     */
    public function forget(ServerConnection $connection): void
    {
        unset($this->connections[spl_object_id($connection)], $this->budgetWaiters[spl_object_id($connection)]);
        if ($this->stopped !== null) {
            if ($this->connections === [] && $this->upgraded === []) {
                $this->settleStop();
            }
        } elseif ($this->listenersPaused && \count($this->connections) + \count($this->upgraded) < $this->maxConnections) {
            $this->listenersPaused = false;
            foreach ($this->listeners as $listener) {
                $listener->resume();
            }
        }
    }

    /**
     * @internal a connection switched protocols (ServerConnection, after a 101): it counts against
     *           maxConnections and stop() ends it, until release()
     */
    public function adopt(Upgraded $connection): void
    {
        $this->upgraded[spl_object_id($connection)] = $connection;
        if ($this->stopped !== null) {
            $connection->shutdown();
        }
    }

    /**
     * @internal an upgraded connection has closed
     */
    public function release(Upgraded $connection): void
    {
        if (isset($this->upgraded[spl_object_id($connection)])) {
            unset($this->upgraded[spl_object_id($connection)]);
            if ($this->stopped !== null && $this->connections === [] && $this->upgraded === []) {
                $this->settleStop();
            } elseif ($this->stopped === null && $this->listenersPaused && $this->connectionCount() < $this->maxConnections) {
                $this->listenersPaused = false;
                foreach ($this->listeners as $listener) {
                    $listener->resume();
                }
            }
        }
    }

    /**
     * @internal for ServerConnection: $parser (the shared one) now belongs to the connection that
     *           fed it (it holds part of a request); another idle parser becomes the shared one
     */
    public function keepParser(RequestParser $parser): void
    {
        if ($parser === $this->parser) {
            $idle = array_pop($this->idleParsers);
            if ($idle === null) {
                ++$this->parsersCreated;
                $idle = new RequestParser($this->options->limits);
            }
            $this->parser = $idle;
        }
    }

    /**
     * How many request parsers this server has made: one per connection that holds bytes of a
     * request at the same moment (at most), not one per connection.
     */
    public function parsersCreated(): int
    {
        return $this->parsersCreated;
    }

    /**
     * @internal for ServerConnection: $parser is idle (RequestParser::isIdle()) and no longer used
     */
    public function returnParser(RequestParser $parser): void
    {
        if (\count($this->idleParsers) < self::IDLE_PARSERS) {
            $this->idleParsers[] = $parser;
        }
    }

    private function accept(Connection $connection): void
    {
        if (\count($this->connections) + \count($this->upgraded) >= $this->maxConnections || $this->stopped !== null) {
            // Another listener's accept batch got past the cap: refuse politely.
            $connection->end(ResponseSerializer::serialize(Response::text("Service Unavailable\n", 503), false, HttpDate::now()));

            return;
        }
        $server = new ServerConnection($this, $connection, $this->loop, $this->options);
        if (!$server->isClosed()) {
            $this->connections[spl_object_id($server)] = $server;
        }
        if (!$this->listenersPaused && \count($this->connections) + \count($this->upgraded) >= $this->maxConnections) {
            $this->listenersPaused = true;
            foreach ($this->listeners as $listener) {
                $listener->pause();
            }
        }
    }

    private function sweep(): void
    {
        $now = $this->loop->now();
        foreach ($this->connections as $connection) {
            if ($connection->deadline <= $now) {
                $connection->expire($now);
            }
        }
        foreach ($this->waitingHandlers as $task) {
            if ($task->deadline <= $now) {
                $task->cancel();
            }
        }
    }

    private function settleStop(): void
    {
        if ($this->sweepTimer !== null) {
            $this->loop->cancel($this->sweepTimer);
            $this->sweepTimer = null;
        }
        if ($this->stopTimer !== null) {
            $this->loop->cancel($this->stopTimer);
            $this->stopTimer = null;
        }
        $this->stopped?->tryResolve(null);
    }
}
