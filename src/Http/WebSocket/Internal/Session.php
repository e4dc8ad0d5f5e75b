<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Internal;

use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\Upgraded;
use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\MessageListener;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketHandler;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Runnable;
use Nexus\Runtime\Scheduler;

/**
 * One connection of a WebSocket route and its handler, from the 101 to the end: what the actor
 * runtime calls an actor, at the cost of one object. The WebSocketConnection delivers messages
 * here (outside any fiber); they wait in a small queue, and the handler's callbacks run from it as
 * a Runnable on the scheduler: onOpen(), then onMessage() per message in order, then onClose(),
 * one at a time. A callback that waits suspends only this runnable (the scheduler goes on in
 * another fiber); what arrives meanwhile queues.
 *
 * Bounds: the queue holds at most WebSocketOptions::$maxQueuedMessages or $maxQueuedBytes (plus
 * the message that reached them); then the connection is paused (no more reading from the client)
 * until the handler has taken half. A callback runs under its time limit (handlerTimeout): this
 * object is the Cancellation the scheduler runs it under, and once a callback waits its deadline
 * is watched by the route's sweep, which cancels its waits when it passes.
 *
 * Failure: a callback that throws (or was cancelled) is logged, the connection is closed with
 * 1011, and no more messages are handed to the handler; onClose() still runs once.
 *
 * @internal
 */
final class Session implements Runnable, Cancellation, MessageListener, Upgraded
{
    /** Callbacks run per turn of the scheduler before the others get theirs. */
    private const BATCH = 32;

    public readonly WebSocket $socket;
    /** When the running callback's time is up, once it waits (INF otherwise): read by the route's sweep. */
    public float $deadline = \INF;

    private readonly Scheduler $scheduler;
    /** The oldest message waiting, when it is the only one (most of the time: no array for it). */
    private ?string $first = null;
    private bool $firstBinary = false;
    /** @var list<string> messages waiting after $first */
    private array $payloads = [];
    /** @var list<bool> */
    private array $binaries = [];
    private int $queuedBytes = 0;
    /** On the run queue or running: more work is picked up by that run. */
    private bool $scheduled = false;
    private bool $opened = false;
    /** A callback failed: the handler gets no more messages. */
    private bool $failed = false;
    private bool $pausedForQueue = false;
    /** The connection has closed: onClose() is owed with this code. */
    private ?int $closeCode = null;
    private string $closeReason = '';
    private bool $done = false;
    /** When the running callback started (Loop::now()); -1 until the first wait of an onMessage(). */
    private float $startedAt = 0.0;
    /**
     * The text message the handler is being handed, checked as UTF-8 already: sending it back
     * (an echo) does not check it again. Null outside onMessage() and for binary messages.
     */
    public ?string $currentText = null;
    private ?CancelledException $timedOut = null;
    /** @var array<int, \Closure(CancelledException): void> the running callback's waits */
    private array $subscribers = [];

    public function __construct(
        private readonly Endpoint $endpoint,
        private readonly WebSocketHandler $handler,
        public readonly WebSocketConnection $connection,
        private readonly Loop $loop,
        private readonly HttpServer $server,
    ) {
        $this->scheduler = $loop->scheduler();
        $this->socket = new WebSocket($connection, $this);
        $connection->sweepIdle();
        $connection->listen($this);
    }

    public function pendingMessages(): int
    {
        return ($this->first === null ? 0 : 1) + \count($this->payloads);
    }

    public function start(string $buffered): void
    {
        $this->endpoint->opened($this, $this->loop);
        $this->scheduled = true;
        $this->scheduler->schedule($this); // onOpen() before any message
        $this->connection->start($buffered);
    }

    public function shutdown(): void
    {
        if ($this->connection->isOpen()) {
            $this->connection->close(CloseCode::GOING_AWAY, 'the server is shutting down');
        }
    }

    public function abort(): void
    {
        $this->connection->abort();
    }

    /**
     * From the connection, outside any fiber: queue the message for the handler.
     */
    public function onMessage(string $payload, bool $binary): void
    {
        $this->queuedBytes += \strlen($payload);
        if ($this->first === null && $this->payloads === []) {
            $this->first = $payload;
            $this->firstBinary = $binary;
        } else {
            $this->payloads[] = $payload;
            $this->binaries[] = $binary;
        }
        if (!$this->scheduled) {
            $this->scheduled = true;
            $this->scheduler->schedule($this);
            if (\Fiber::getCurrent() === null && $this->endpoint->runsNow($this->loop->now())) {
                // From a socket's readiness, outside any fiber: the handlers run now rather than
                // after every other socket of this loop turn was read, so that their answers leave
                // early and the clients work on them meanwhile. It still is the scheduler that runs
                // them (see Endpoint::runsNow()).
                $this->runScheduler();
            }
        } elseif (!$this->pausedForQueue && ($this->pendingMessages() >= $this->endpoint->options->maxQueuedMessages || $this->queuedBytes >= $this->endpoint->options->maxQueuedBytes)) {
            $this->pausedForQueue = true;
            $this->connection->pause();
        }
    }

    private function runScheduler(): void
    {
        try {
            $this->scheduler->run();
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
        }
    }

    /**
     * From the connection, once: it has closed. It leaves the server and the idle sweep now; the
     * handler's onClose() follows the messages queued before it.
     */
    public function onClose(int $code, string $reason): void
    {
        $this->closeCode = $code;
        $this->closeReason = $reason;
        $this->server->release($this);
        $this->endpoint->closed($this);
        foreach ($this->socket->runCloseHooks() as $error) {
            $this->endpoint->logger->error('A close hook of a WebSocket connection of {route} threw: {message}', [
                'route' => $this->endpoint->route,
                'message' => $error->getMessage(),
                'exception' => $error,
            ]);
        }
        if (!$this->scheduled) {
            $this->scheduled = true;
            $this->scheduler->schedule($this);
        }
    }

    public function run(): void
    {
        $handler = $this->handler;
        $socket = $this->socket;
        for ($budget = self::BATCH; $budget > 0; --$budget) {
            if (!$this->opened) {
                $this->opened = true;
                $this->startedAt = $this->loop->now();
                try {
                    $handler->onOpen($socket);
                } catch (\Throwable $e) {
                    $this->failed($e, 'onOpen');
                }
                $this->callbackEnded();
            } elseif ($this->first !== null || $this->payloads !== []) {
                if ($this->first !== null) {
                    $payload = $this->first;
                    $binary = $this->firstBinary;
                    $this->first = null;
                } else {
                    $payload = (string) array_shift($this->payloads);
                    $binary = array_shift($this->binaries) === true;
                }
                $this->queuedBytes -= \strlen($payload);
                if ($this->pausedForQueue && 2 * $this->pendingMessages() < $this->endpoint->options->maxQueuedMessages && 2 * $this->queuedBytes < $this->endpoint->options->maxQueuedBytes) {
                    $this->pausedForQueue = false;
                    $this->connection->resume();
                }
                if ($this->failed) {
                    continue;
                }
                $this->startedAt = -1.0; // taken at its first wait, if it waits (see subscribe())
                $this->currentText = $binary ? null : $payload;
                try {
                    $handler->onMessage($socket, $payload, $binary);
                } catch (\Throwable $e) {
                    $this->failed($e, 'onMessage');
                }
                $this->currentText = null;
                if ($this->deadline !== \INF || $this->subscribers !== [] || $this->timedOut !== null) {
                    $this->callbackEnded(); // it waited: the rest of callbackEnded() is owed
                }
            } elseif ($this->closeCode !== null && !$this->done) {
                $this->done = true;
                $this->startedAt = $this->loop->now();
                try {
                    $handler->onClose($socket, $this->closeCode, $this->closeReason);
                } catch (\Throwable $e) {
                    $this->failed($e, 'onClose');
                }
                $this->callbackEnded();
                $socket->release();
            } else {
                $this->scheduled = false;

                return;
            }
        }
        // The budget is spent: the others get their turn, this one comes back.
        $this->scheduler->schedule($this);
    }

    public function subscribe(\Closure $callback): int
    {
        if ($this->startedAt < 0.0) {
            // The first wait of an onMessage() that started in this loop turn (it had not waited
            // yet, and Loop::now() only moves between turns): the turn's time is its start.
            $this->startedAt = $this->loop->now();
        }
        if ($this->timedOut === null && $this->loop->clock()->now() >= $this->startedAt + $this->endpoint->options->handlerTimeout) {
            $this->cancel();
        }
        if ($this->timedOut !== null) {
            $callback($this->timedOut);

            return -1;
        }
        if ($this->subscribers === []) {
            $this->deadline = $this->startedAt + $this->endpoint->options->handlerTimeout;
            $this->endpoint->waits($this, true);
        }
        $this->subscribers[] = $callback;

        return array_key_last($this->subscribers);
    }

    public function unsubscribe(int $id): void
    {
        if (isset($this->subscribers[$id])) {
            unset($this->subscribers[$id]);
            if ($this->subscribers === []) {
                $this->deadline = \INF;
                $this->endpoint->waits($this, false);
            }
        }
    }

    public function isRequested(): bool
    {
        return $this->timedOut !== null;
    }

    public function throwIfRequested(): void
    {
        if ($this->timedOut !== null) {
            throw $this->timedOut;
        }
    }

    /**
     * The running callback's time is up: every wait of it ends with a CancelledException.
     */
    public function cancel(): void
    {
        if ($this->timedOut !== null) {
            return;
        }
        $timeout = new TimeoutException(\sprintf(
            'A callback of WebSocket route %s ran out of its %s s (WebSocketOptions::$handlerTimeout); its waits are cancelled and the connection is closed with 1011.',
            $this->endpoint->route,
            $this->endpoint->options->handlerTimeout,
        ));
        $cancelled = $this->timedOut = new CancelledException($timeout->getMessage(), 0, $timeout);
        $subscribers = $this->subscribers;
        $this->subscribers = [];
        if ($subscribers !== []) {
            $this->deadline = \INF;
            $this->endpoint->waits($this, false);
        }
        foreach ($subscribers as $subscriber) {
            try {
                $subscriber($cancelled);
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
    }

    private function callbackEnded(): void
    {
        if ($this->deadline !== \INF || $this->subscribers !== []) {
            $this->subscribers = [];
            $this->deadline = \INF;
            $this->endpoint->waits($this, false);
        }
        $this->timedOut = null;
    }

    private function failed(\Throwable $e, string $callback): void
    {
        $this->failed = true;
        $context = [
            'route' => $this->endpoint->route,
            'callback' => $callback,
            'socket' => $this->socket->id,
            'message' => $e->getMessage(),
            'exception' => $e,
        ];
        if ($this->timedOut !== null) {
            $this->endpoint->logger->warning('{callback}() of WebSocket route {route} ran out of its time limit (WebSocketOptions::$handlerTimeout); connection {socket} is closed with 1011.', $context);
        } else {
            $this->endpoint->logger->error('{callback}() of WebSocket route {route} threw: {message}; connection {socket} is closed with 1011.', $context);
        }
        if ($this->connection->isOpen()) {
            $this->connection->close(CloseCode::INTERNAL_ERROR, 'internal error');
        }
    }
}
