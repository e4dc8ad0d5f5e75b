<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\HttpDate;
use Nexus\Http\Parser\HttpParseException;
use Nexus\Http\Parser\RequestParser;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use Nexus\Http\Server\Internal\HandlerOutcome;
use Nexus\Http\Server\Internal\ProtocolSwitch;
use Nexus\Http\Server\Internal\ResponseStreamer;
use Nexus\Http\Status;
use Nexus\Io\Connection;
use Nexus\Io\ConnectionHandler;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Runnable;
use Nexus\Runtime\Scheduler;

/**
 * The server side of one HTTP/1.x connection: parses requests as bytes arrive, hands each one to
 * the scheduler as a RequestTask, and writes the responses strictly in request order. It never
 * blocks: a slow client only ever holds up itself.
 *
 * Bounds (ServerOptions): the bytes of requests received and not answered yet count against
 * maxBufferedPerConnection and the server's maxBufferedTotal (reading stops at them, or a body
 * that cannot fit gets 503); a handler's waits end at handlerTimeout (503); a client that takes
 * no byte of its response for sendTimeout is cut off; and one wait at a time is timed by
 * $deadline (head 408, body 408, idle, linger).
 *
 * The usual request takes a shorter way (a "fast request"): a connection with nothing in progress
 * that receives exactly the bytes of a plain request the server has seen before (HttpServer::
 * $prototypes) queues a clone of it and schedules itself, no parser and no RequestTask involved;
 * its run() calls the handler and writes the response. The request becomes a RequestTask only
 * when that is needed: its handler waits (its first wait subscribes to this connection as the
 * handler's Cancellation), or its response is streamed, an upgrade, or refused. Everything else
 * (the order of responses, the bounds, the timeouts) works on it as on any request.
 *
 * What only some requests need is in Internal: HandlerOutcome (the answer that replaces a
 * handler's), ResponseStreamer (a streamed response and its back-pressure) and ProtocolSwitch
 * (the 101 and the hand-over of the socket). The rest shares this object's state and stays here,
 * where the fast way reads it without a call (see the property order below).
 *
 * @internal created by HttpServer
 */
final class ServerConnection implements ConnectionHandler, Runnable, Cancellation
{
    private const WAIT_NONE = 0;
    /** a request head has begun and must be complete by the deadline (408) */
    private const WAIT_REQUEST = 1;
    /** a request body is arriving; the deadline moves with every byte (408) */
    private const WAIT_BODY = 2;
    /** nothing in progress; closed silently at the deadline */
    private const WAIT_IDLE = 3;
    /** answered and end()ed; closed hard at the deadline */
    private const WAIT_LINGER = 4;
    /** bytes wait to be sent; closed when the client takes none of them until the deadline */
    private const WAIT_SEND = 5;

    // Declared in the order the fast way (dataReceived(), run()) touches them, so that they share
    // the fewest cache lines: with a thousand connections each request finds its connection cold.
    /**
     * Only while part of a request is here (RequestParser::isIdle() is false): bytes that bring
     * whole requests go through the server's shared parser, and the connection keeps that one
     * only when some are left over (HttpServer::keepParser()); it gives it back once idle. An idle
     * keep-alive connection has none, and the few parsers in use stay in the CPU caches however
     * many connections there are.
     */
    private ?RequestParser $parser = null;
    private int $head = 0;
    private int $tail = 0;
    /** no more requests are read (Connection: close, a bad request, or the server drains) */
    private bool $closing = false;
    /** the write buffer is above the high-water mark: reading waits for onDrain */
    private bool $blocked = false;
    /** end() was called: input is read and discarded until the client closes */
    private bool $ended = false;
    /** the server is stopping: the last response in the queue closes the connection */
    private bool $draining = false;
    private readonly HttpServer $server;
    /** the fast request in progress (see the class comment), at the head */
    private ?Request $fast = null;
    private readonly Connection $connection;
    /** bytes of the requests in the queue, as received (counted in the server's total as they change) */
    private int $inFlightBytes = 0;
    /** when the fast request was read (its handler's time limit counts from then) */
    private float $fastReadAt = 0.0;
    private readonly Loop $loop;
    private bool $fresh = true;
    private readonly Scheduler $scheduler;
    private readonly ServerOptions $options;
    private bool $closed = false;
    /** the fast request became this task while its handler ran (see promote()) */
    private ?RequestTask $promoted = null;
    private bool $readPaused = false;
    private bool $peerEnded = false;
    /** When the current wait runs out (INF: not waiting). Checked by the server's sweep timer. */
    public float $deadline = \INF;
    private int $waiting = self::WAIT_NONE;
    /** the length of the current wait, for another period when the client still reads */
    private float $waitTimeout = 0.0;
    /**
     * Requests in progress, by sequence number (head to tail), but for the fast request: that
     * one counts as the first in progress but is kept in $fast until it is answered or becomes a
     * task in its place (promote()).
     *
     * @var array<int, RequestTask>
     */
    private array $queue = [];
    /** bytes sent when the deadline was set: a client that reads slowly is not stuck */
    private int $sentAtDeadline = 0;
    /** bytes held by this connection's parser, as counted in the server's total (see update()) */
    private int $parserCharged = 0;
    private bool $continueOwed = false;
    /** @var Deferred<bool>|null a streaming producer waiting for the write buffer to drain (false: it closed instead) */
    private ?Deferred $drainWaiter = null;

    public function __construct(HttpServer $server, Connection $connection, Loop $loop, ServerOptions $options)
    {
        $this->server = $server;
        $this->connection = $connection;
        $this->loop = $loop;
        $this->options = $options;
        $this->scheduler = $loop->scheduler();
        // The connection's owner as an object: no closure and no callback list per connection.
        $connection->attach($this);
        $this->update();
    }

    /**
     * @internal Connection: bytes arrived
     */
    public function dataReceived(string $data): void
    {
        if ($this->parser === null && $this->head === $this->tail && !$this->closing && !$this->blocked && !$this->ended && !$this->draining) {
            // Nothing in progress, and maybe exactly a request seen before (see HttpServer::$prototypes).
            $server = $this->server;
            $prototype = $data === $server->lastHead ? $server->lastPrototype : $server->prototypes[$data] ?? null;
            if ($prototype !== null) {
                // A fast request: queued as it is and run by this connection (run()). Written out
                // here rather than in a method: under the JIT each call and each write to a typed
                // property costs, and this runs for most requests.
                $request = clone $prototype;
                $request->connection = $this->connection;
                $this->fast = $request;
                ++$this->tail;
                $bytes = \strlen($data);
                $this->inFlightBytes = $bytes; // nothing else in progress
                $server->charge($bytes);
                $this->fastReadAt = $this->loop->now();
                if ($this->fresh) {
                    $this->fresh = false;
                }
                $this->scheduler->schedule($this);
                if ($bytes >= $server->fastLimit || $server->overBudget) {
                    $this->update(); // reading stops (maxPipelined, a budget)
                }

                return;
            }
        }
        $this->received($data);
    }

    /**
     * @internal the scheduler: answers the fast request (see the class comment) at the head of
     *           the queue; what its handler needs a task for makes it one (promote())
     */
    public function run(): void
    {
        $request = $this->fast;
        if ($request === null) {
            return; // the connection closed (or was handed over) before the request's turn
        }
        if ($this->options->allowedHosts !== null && !$this->server->allowsHost($request)) {
            $response = Response::text("Misdirected Request\n", 421);
        } else {
            try {
                $response = $this->server->handler->handle($request);
            } catch (\Throwable $e) {
                $response = HandlerOutcome::threw($this->promoted ?? $this->promote($request), $e, $this->server->logger);
            }
        }
        if ($this->closed) {
            if ($this->promoted !== null) {
                $this->promoted = null;
                $this->scheduler->setCancellation(null);
            }

            return;
        }
        $task = $this->promoted;
        if ($task !== null || $response->producer !== null || $response->status < 200 || $this->closing) {
            // The handler waited or threw (the request is a task already), or the answer is
            // streamed, an upgrade or a 1xx, or the connection is closing: the general way.
            $this->answer($task ?? $this->promote($request), $response);
            $this->promoted = null;
            $this->scheduler->setCancellation(null);

            return;
        }
        // At the head of the queue (it came with nothing in progress), so it is written now. A
        // Response cannot change: the one the server wrote last, within the same second, is the
        // bytes it wrote (a handler's remembered conversion answers with the same object).
        $server = $this->server;
        $second = time();
        if ($response === $server->lastResponse && $second === $server->lastSecond) {
            $bytes = $server->lastBytes;
        } else {
            $bytes = ResponseSerializer::serialize($response, true, HttpDate::now($second));
            if (\strlen($bytes) <= HttpServer::REMEMBERED_RESPONSE_MAX) {
                // Kept until the next one: a small answer only (a large one costs its sending).
                $server->lastResponse = $response;
                $server->lastSecond = $second;
                $server->lastBytes = $bytes;
            }
        }
        if ($this->head + 1 === $this->tail) {
            $size = $this->inFlightBytes;
            $this->inFlightBytes = 0;
        } else {
            $size = $this->fastBytes();
            $this->inFlightBytes -= $size;
        }
        $this->fast = null;
        ++$this->head;
        $server->charge(-$size);
        ++$server->served;
        if (!$this->connection->write($bytes)) {
            if ($this->connection->isClosed()) {
                return; // it broke: release() has run
            }
            $this->blocked = true;
        }
        if ($this->head === $this->tail && $this->parser === null && !$this->blocked && !$this->readPaused && !$this->peerEnded) {
            // Idle again: the keep-alive timeout starts over (what update() would do, without what
            // cannot apply here; not fresh: a request was read).
            $timeout = $this->options->keepAliveTimeout;
            $this->deadline = $this->loop->now() + $timeout;
            if ($this->waiting !== self::WAIT_IDLE || $this->waitTimeout !== $timeout) {
                $this->waiting = self::WAIT_IDLE;
                $this->waitTimeout = $timeout;
            }
            if ($this->connection->bufferedBytes() !== 0) {
                // A client that reads slowly gets another period (expire()); with nothing
                // buffered nothing can be sent before the next request, which sets the wait again.
                $this->sentAtDeadline = $this->connection->sentBytes();
            }

            return;
        }
        $this->flush();
    }

    /**
     * @internal the scheduler (Cancellation): the handler of the fast request waits, and is
     *           limited in time from here on as a task: the request becomes one (promote()) and
     *           the task is the cancellation of this fiber from now on
     */
    public function subscribe(\Closure $callback): int
    {
        $task = $this->promoted;
        if ($task === null) {
            $request = $this->fast;
            if ($request === null) {
                return -1; // nothing of this connection is running: never requested
            }
            $task = $this->promote($request);
        }
        $this->scheduler->setCancellation($task);

        return $task->subscribe($callback);
    }

    /**
     * @internal (Cancellation)
     */
    public function unsubscribe(int $id): void
    {
        $this->promoted?->unsubscribe($id);
    }

    /**
     * @internal (Cancellation)
     */
    public function isRequested(): bool
    {
        return $this->promoted?->isRequested() ?? false;
    }

    /**
     * @internal (Cancellation)
     */
    public function throwIfRequested(): void
    {
        $this->promoted?->throwIfRequested();
    }

    /**
     * @internal Connection: the client closed its write side
     */
    public function endReceived(): void
    {
        $this->peerEnded = true;
        $this->update();
    }

    /**
     * @internal Connection: the write buffer emptied after it went above the high-water mark
     */
    public function drained(): void
    {
        $this->blocked = false;
        $waiter = $this->drainWaiter;
        if ($waiter !== null) {
            $this->drainWaiter = null;
            $waiter->resolve(true);
        }
        $parser = $this->parser;
        if (!$this->closing && $parser !== null && $parser->bufferedBytes() > 0) {
            $this->parse($parser);
        } else {
            $this->update();
        }
    }

    /**
     * @internal Connection: it closed
     */
    public function closed(?\Throwable $reason): void
    {
        $this->release();
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * Runs the handler of $task (in a scheduler fiber) and queues its response.
     */
    public function runTask(RequestTask $task): void
    {
        if ($this->closed || $task->request === null) {
            return;
        }
        $request = $task->request;
        if ($this->options->allowedHosts !== null && !$this->server->allowsHost($request)) {
            $task->handlerDone = true;
            $task->response = Response::text("Misdirected Request\n", 421);
            $this->respond($task, $task->response);

            return;
        }
        // The handler runs under its time limit: the task is a Cancellation, so the scheduler
        // runs it under itself, and its waits end once it is cancelled.
        try {
            $response = $this->server->handler->handle($request);
        } catch (\Throwable $e) {
            $response = HandlerOutcome::threw($task, $e, $this->server->logger);
        }
        $this->answer($task, $response);
    }

    /**
     * The handler of $task returned $response (or failed with it): it is checked and queued.
     */
    private function answer(RequestTask $task, Response $response): void
    {
        $task->handlerDone = true; // a streaming producer is not under the limit
        if ($task->timedOut !== null || $response->status < 200) {
            $response = HandlerOutcome::checked($task, $response, $this->options->handlerTimeout, $this->server->logger);
        }
        $task->response = $response;
        $this->respond($task, $response);
    }

    /**
     * The fast request at the head of the queue becomes a task in its place: from here on it is
     * a request like the others (its handler's waits are limited in time, its response waits its
     * turn, it may stream or upgrade).
     */
    private function promote(Request $request): RequestTask
    {
        $task = new RequestTask($this, $request);
        $task->bytes = $this->head + 1 === $this->tail ? $this->inFlightBytes : $this->fastBytes();
        $task->deadline = $this->fastReadAt + $this->options->handlerTimeout;
        $this->queue[$this->head] = $task;
        $this->fast = null;
        $this->promoted = $task;

        return $task;
    }

    /**
     * The bytes of the fast request at the head of the queue: what is in flight less the tasks
     * behind it.
     */
    private function fastBytes(): int
    {
        $bytes = $this->inFlightBytes;
        for ($i = $this->head + 1; $i < $this->tail; ++$i) {
            $bytes -= $this->queue[$i]->bytes;
        }

        return $bytes;
    }

    /**
     * $task has its $response: written now if it is the first in the queue, or once the ones
     * before it are; a streamed one is produced in this fiber.
     */
    private function respond(RequestTask $task, Response $response): void
    {
        if ($this->closed) {
            return;
        }
        if ($response->producer === null || $task->head || $response->status === 204 || $response->status === 304) {
            if (!$this->connection->isClosed() && ($this->queue[$this->head] ?? null) === $task) {
                $this->flush();
            }

            return;
        }
        $task->streamed = true;
        (new ResponseStreamer($this, $this->connection, $this->loop, $this->server->logger))->stream($task, $response->producer);
    }

    /**
     * @internal for RequestTask: the time now (not the turn's start: a handler may have computed
     *           for long before it waits)
     */
    public function now(): float
    {
        return $this->loop->clock()->now();
    }

    /**
     * @internal for RequestTask: its handler waits (the server watches its deadline) or no more
     */
    public function handlerWaits(RequestTask $task, bool $waits): void
    {
        $this->server->watchHandler($task, $waits);
    }

    /**
     * @internal for RequestTask
     */
    public function reportError(\Throwable $error): void
    {
        $this->loop->reportError($error);
    }

    /**
     * Called by the server when its total of buffered bytes has fallen below its bound.
     */
    public function budgetFreed(): void
    {
        $this->update();
    }

    /**
     * @internal for ResponseStreamer: whether $task is at the head of the queue (its response is
     *           the next to write)
     */
    public function isFirst(RequestTask $task): bool
    {
        return ($this->queue[$this->head] ?? null) === $task;
    }

    /**
     * @internal for ResponseStreamer: whether the connection stays open after the response of
     *           $task, at the head of the queue (not if the server drains and it is the last)
     */
    public function keepsAlive(RequestTask $task): bool
    {
        return $task->keepAlive && !($this->draining && $this->head + 1 === $this->tail);
    }

    /**
     * @internal for ResponseStreamer: a write left the buffer above the high-water mark (or the
     *           connection closed): reading waits for drained()
     */
    public function writeBlocked(): void
    {
        $this->blocked = !$this->connection->isClosed();
    }

    /**
     * @internal for ResponseStreamer: the buffer is above the high-water mark; stops reading,
     *           times the client's reading (sendTimeout) and waits until it drains (true) or the
     *           connection closes (false)
     */
    public function awaitDrain(): bool
    {
        $this->blocked = true;
        $this->update();
        /** @var Deferred<bool> $waiter */
        $waiter = new Deferred($this->loop);
        $this->drainWaiter = $waiter;

        return $waiter->future()->await();
    }

    /**
     * @internal for ResponseStreamer: the streamed response of $task, at the head of the queue,
     *           is complete; the next ones follow, or the connection ends after it
     */
    public function streamed(RequestTask $task, bool $keepAlive): void
    {
        if ($this->closed) {
            return;
        }
        $this->dequeue($task);
        if ($keepAlive) {
            $this->flush();
        } else {
            $this->finish();
        }
    }

    /**
     * The server stops: finish what is in progress, take no more requests. With an $idleGrace,
     * an idle keep-alive connection is not cut at once: a request already on its way is still
     * answered (with Connection: close), and the connection closes after $idleGrace seconds
     * without one. That is what lets a pool replace a worker without failing a request.
     */
    public function drain(float $idleGrace = 0.0): void
    {
        $this->draining = true;
        if ($idleGrace > 0.0 && $this->head === $this->tail && !$this->ended && !$this->closing) {
            if ($this->deadline > $this->loop->now() + $idleGrace) {
                $this->waiting = self::WAIT_NONE;
                $this->wait(self::WAIT_IDLE, $idleGrace);
            }

            return;
        }
        $this->closing = true;
        if ($this->head === $this->tail && !$this->ended) {
            // end(), not close(): a response may still be on its way to a slow reader.
            $this->finish();

            return;
        }
        $this->update();
    }

    public function close(): void
    {
        $this->connection->close();
    }

    /**
     * Called by the server's sweep timer once $deadline has passed.
     */
    public function expire(float $now): void
    {
        $this->connection->flushPending();
        if ($this->closed || $this->deadline > $now) {
            return; // what the kernel took emptied the buffer, and the next wait is set
        }
        if ($this->waiting === self::WAIT_IDLE && $this->head !== $this->tail) {
            // A fast request came while idle and left that deadline in place: while requests are
            // in progress no deadline applies to the connection (their handlers' limits do).
            $this->waiting = self::WAIT_NONE;
            $this->deadline = \INF;

            return;
        }
        if ($this->connection->bufferedBytes() > 0 && $this->connection->sentBytes() > $this->sentAtDeadline) {
            // Still sending to a client that reads, just slowly: give it another period.
            $this->sentAtDeadline = $this->connection->sentBytes();
            $this->deadline = $now + $this->waitTimeout;

            return;
        }
        if ($this->waiting === self::WAIT_REQUEST || $this->waiting === self::WAIT_BODY) {
            $this->reject(408);
        } elseif ($this->waiting === self::WAIT_SEND && $this->connection->bufferedBytes() === 0) {
            // Everything went out meanwhile: time whatever comes next.
            $this->waiting = self::WAIT_NONE;
            $this->deadline = \INF;
            $this->update();
        } else {
            if ($this->waiting === self::WAIT_SEND) {
                $this->server->logger?->info('Closed a connection whose client took none of {bytes} bytes waiting for it within {seconds} s (ServerOptions::$sendTimeout).', [
                    'bytes' => $this->connection->bufferedBytes(),
                    'seconds' => $this->options->sendTimeout,
                ]);
            }
            $this->connection->close();
        }
    }

    private function received(string $data): void
    {
        if ($this->ended) {
            return;
        }
        $parser = $this->parser;
        // Bytes that reach an empty parser may be exactly one plain request, which the server
        // then remembers for the fast way (see dataReceived()).
        $whole = $parser === null && \strlen($data) <= HttpServer::PROTOTYPE_MAX_BYTES ? $data : null;
        $parser ??= $this->server->parser;
        $parser->feed($data);
        if ($this->waiting === self::WAIT_BODY) {
            // The body timeout counts from the last byte: let update() set it again.
            $this->waiting = self::WAIT_NONE;
        }
        $this->parse($parser, $whole);
    }

    /**
     * @param RequestParser $parser this connection's, or the server's shared one (then it is kept
     *                              here only if it holds part of a request when this returns)
     * @param string|null   $whole  the bytes just fed to an empty parser, if it was (see received())
     */
    private function parse(RequestParser $parser, ?string $whole = null): void
    {
        $max = $this->options->maxPipelined;
        $continue = false;
        // A handler's time limit counts from when its request was read.
        $deadline = $this->loop->now() + $this->options->handlerTimeout;
        while (!$this->closing && $this->tail - $this->head < $max) {
            try {
                $request = $parser->next();
            } catch (HttpParseException $e) {
                if ($this->parser === null) {
                    $this->parser = $parser;
                    $this->server->keepParser($parser);
                }
                $this->reject($e->status);

                return;
            }
            if ($request === null) {
                $continue = $parser->needsContinue();

                break;
            }
            $bytes = $parser->lastRequestBytes;
            $keepAlive = $request->keepAlive();
            if ($keepAlive && isset($request->headers()['upgrade'])) {
                // An upgrade request is the last one read here: what follows it belongs to the new
                // protocol after a 101, and any other answer closes the connection.
                $keepAlive = false;
            }
            if ($whole !== null) {
                if ($keepAlive && $bytes === \strlen($whole) && $request->body() === '' && $request->method() !== 'HEAD' && $request->protocolVersion() === '1.1') {
                    $this->server->remember($whole, $request);
                }
                $whole = null;
            }
            $request->connection = $this->connection;
            if ($this->fresh) {
                $this->fresh = false;
            }
            $task = new RequestTask($this, $request);
            $task->bytes = $bytes;
            $task->deadline = $deadline;
            if (!$keepAlive) {
                $task->keepAlive = false;
            }
            if ($request->method() === 'HEAD') {
                $task->head = true;
            }
            $version = $request->protocolVersion();
            if ($version !== '1.1') {
                $task->protocolVersion = $version;
            }
            $this->queue[$this->tail++] = $task;
            $this->inFlightBytes += $bytes;
            $this->server->charge($bytes);
            if (!$keepAlive) {
                $this->closing = true;
            }
            $this->server->dispatch($task);
        }
        if ($this->parser === null) {
            if (!$parser->isIdle()) {
                $this->parser = $parser;
                $this->server->keepParser($parser);
            }
        } elseif ($parser->isIdle()) {
            $this->parser = null;
            $this->server->returnParser($parser);
        }
        // update() first: a body that cannot fit in the server's budget gets 503, not 100 Continue.
        $this->update();
        if ($continue && !$this->closing) {
            if ($this->head === $this->tail) {
                $this->connection->write(ResponseSerializer::CONTINUE);
            } else {
                $this->continueOwed = true;
            }
        }
    }

    /**
     * Answers with $status and closes once the answer (and everything before it) is sent.
     */
    private function reject(int $status): void
    {
        $this->closing = true;
        $this->fresh = false;
        $this->parser?->discard();
        $task = new RequestTask($this, null);
        $task->keepAlive = false;
        $response = Response::text(Status::reason($status) . "\n", $status);
        $task->response = $status === 503 ? $response->withHeader('Retry-After', '1') : $response;
        $this->queue[$this->tail++] = $task;
        if ($this->head + 1 === $this->tail) {
            $this->flush();
        } else {
            $this->update();
        }
    }

    /**
     * Writes the finished responses at the front of the queue, in order.
     */
    private function flush(): void
    {
        while ($this->head < $this->tail) {
            $task = $this->queue[$this->head] ?? null;
            if ($task === null) {
                break; // the fast request, not answered yet (run() writes it)
            }
            $response = $task->response;
            if ($response === null) {
                break;
            }
            if ($task->streamed) {
                // Its producer writes it, in the task's own fiber.
                $turn = $task->turn;
                if ($turn !== null) {
                    $task->turn = null;
                    $turn->resolve(null);
                }

                return;
            }
            if ($response->upgrade !== null) {
                $this->upgrade($task, $response, $response->upgrade);

                return;
            }
            $keepAlive = $task->keepAlive && !($this->draining && $this->head + 1 === $this->tail);
            if ($response->producer === null) {
                $bytes = ResponseSerializer::serialize($response, $keepAlive, HttpDate::now(), $task->head, false, $task->protocolVersion);
            } else {
                $bytes = ResponseStreamer::head($response, $keepAlive, $task->head, $task->protocolVersion);
                $keepAlive = $keepAlive && $task->protocolVersion !== '1.0';
            }
            unset($this->queue[$this->head++]);
            $this->inFlightBytes -= $task->bytes;
            $this->server->charge(-$task->bytes);
            ++$this->server->served;
            if (!$this->connection->write($bytes)) {
                if ($this->closed) {
                    return;
                }
                $this->blocked = true;
            }
            if (!$keepAlive) {
                $this->finish();

                return;
            }
        }
        if ($this->head === $this->tail && $this->continueOwed) {
            $this->continueOwed = false;
            $this->connection->write(ResponseSerializer::CONTINUE);
        }
        $parser = $this->parser;
        if ($this->closing || $this->blocked || $parser === null || $parser->bufferedBytes() === 0) {
            $this->update();
        } else {
            $this->parse($parser);
        }
    }

    /**
     * The answer to the upgrade request is a 101: once its head is written and the Upgrade has
     * the socket (ProtocolSwitch), this object lets go of it (its budgets and deadline; the server
     * forgets it) and the new protocol starts with the bytes the client sent after its request.
     */
    private function upgrade(RequestTask $task, Response $response, Upgrade $upgrade): void
    {
        $this->dequeue($task);
        $upgraded = ProtocolSwitch::begin($this->connection, $this->loop, $this->server, $response, $upgrade);
        if ($upgraded === null) {
            return;
        }
        $buffered = $this->parser?->takeBuffered() ?? '';
        $this->parser = null;
        $this->release();
        $upgraded->start($buffered);
    }

    /**
     * $task, at the head of the queue, is answered: its bytes no longer count against the budgets.
     */
    private function dequeue(RequestTask $task): void
    {
        unset($this->queue[$this->head++]);
        $this->inFlightBytes -= $task->bytes;
        $this->server->charge(-$task->bytes);
        ++$this->server->served;
    }

    /**
     * The last response is queued: half-close once it is sent, discard whatever else arrives.
     */
    private function finish(): void
    {
        $this->ended = true;
        $this->closing = true;
        $this->connection->end();
        $this->update();
    }

    /**
     * Lets go of the connection: it closed, or it was handed over after a 101.
     */
    private function release(): void
    {
        $this->closed = true;
        $this->deadline = \INF;
        $waiter = $this->drainWaiter;
        $this->drainWaiter = null;
        $waiter?->resolve(false);
        foreach ($this->queue as $task) {
            $turn = $task->turn;
            $task->turn = null;
            $turn?->resolve(null);
        }
        $this->queue = [];
        $this->fast = null;
        if ($this->parser !== null) {
            $this->parser->discard();
            $this->parser = null;
        }
        $charged = $this->inFlightBytes + $this->parserCharged;
        if ($charged !== 0) {
            $this->inFlightBytes = $this->parserCharged = 0;
            $this->server->charge(-$charged);
        }
        $this->server->forget($this);
    }

    /**
     * Brings the buffer budgets, reading and the deadline in line with the state.
     */
    private function update(): void
    {
        if ($this->closed) {
            return;
        }
        $inFlight = $this->tail - $this->head;
        if ($this->peerEnded && $inFlight === 0 && !$this->ended) {
            // The client has sent all it will; anything incomplete in the parser never finishes.
            $this->ended = true;
            $this->connection->end();
            if ($this->connection->isClosed()) {
                return;
            }
        }
        // What this connection holds: requests in the queue (counted as they come and go), bytes
        // in the parser, and the rest of a declared body, counted from its head on so that
        // admitting it cannot overflow later.
        $parser = $this->parser;
        $held = $parser === null ? 0 : $parser->heldBytes();
        if ($held !== $this->parserCharged) {
            $delta = $held - $this->parserCharged;
            $this->parserCharged = $held;
            $this->server->charge($delta);
        }
        $charge = $this->inFlightBytes + $held;
        $server = $this->server;
        if ($inFlight === 0) {
            if ($charge > 0 && $server->overBudget && !$this->closing && $parser !== null && $parser->isReadingBody()) {
                // Nothing of this connection is in progress that would free the budget if it
                // waited: its body cannot be taken now.
                $this->reject(503);

                return;
            }
            // One request is always read whole (the parser's limits bound it).
            $read = $this->ended || (!$this->closing && !$this->blocked);
        } else {
            $read = $this->ended || (!$this->closing && !$this->blocked && $inFlight < $this->options->maxPipelined
                && $charge < $this->options->maxBufferedPerConnection && !$server->overBudget);
            if (!$read && $server->overBudget) {
                $server->waitForBudget($this);
            }
        }
        if ($read === $this->readPaused) {
            $this->readPaused = !$read;
            if ($read) {
                $this->connection->resume();
            } else {
                $this->connection->pause();
            }
        }
        if ($this->ended) {
            $this->wait(self::WAIT_LINGER, $this->options->lingerTimeout);
        } elseif ($this->blocked) {
            // More than the write high-water mark waits for the client (a few KiB below it are
            // left to the idle timeout).
            $this->wait(self::WAIT_SEND, $this->options->sendTimeout);
        } elseif ($inFlight > 0) {
            // The handlers' time limits apply meanwhile. (Only what changes is written: under the
            // JIT every write to a typed property is a helper call of about 80 instructions.)
            if ($this->waiting !== self::WAIT_NONE || $this->deadline !== \INF) {
                $this->waiting = self::WAIT_NONE;
                $this->deadline = \INF;
            }
        } elseif ($parser === null) {
            $this->wait(self::WAIT_IDLE, $this->fresh ? $this->options->headerTimeout : $this->options->keepAliveTimeout);
        } elseif ($parser->isReadingBody()) {
            $this->wait(self::WAIT_BODY, $this->options->bodyTimeout);
        } elseif ($parser->bufferedBytes() > 0) {
            $this->wait(self::WAIT_REQUEST, $this->options->headerTimeout);
        } else {
            $this->wait(self::WAIT_IDLE, $this->fresh ? $this->options->headerTimeout : $this->options->keepAliveTimeout);
        }
    }

    private function wait(int $kind, float $timeout): void
    {
        if ($this->waiting !== $kind) {
            $this->waiting = $kind;
            if ($this->waitTimeout !== $timeout) {
                $this->waitTimeout = $timeout;
            }
            $this->deadline = $this->loop->now() + $timeout;
            $this->sentAtDeadline = $this->connection->sentBytes();
        }
    }
}
