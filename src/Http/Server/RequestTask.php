<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Runnable;

/**
 * One request on its way through the server: run by the scheduler (so the handler gets a fiber
 * only if it waits), then kept in its connection's queue until its response is written in order.
 *
 * It is also the handler's time limit: being a Cancellation, it is what the scheduler runs it
 * under, so every Future::await() of the handler subscribes here (a streaming producer, which
 * runs after the handler, is not limited). A task with subscribers is on the server's list
 * of waiting handlers, whose sweep timer cancels the ones past their deadline; a handler that
 * never waits costs no timer and no list entry.
 *
 * @internal
 */
final class RequestTask implements Runnable, Cancellation
{
    public ?Response $response = null;
    /** The response is streamed by its producer, in this task's fiber. */
    public bool $streamed = false;
    /** @var Deferred<null>|null settled when a streamed response may start (earlier ones are sent) */
    public ?Deferred $turn = null;
    /** Set once the handler's time ran out: its waits are cancelled with it. */
    public ?CancelledException $timedOut = null;
    /** The handler has returned: what runs after it (a streaming producer) is not limited. */
    public bool $handlerDone = false;
    /** @var array<int, \Closure(CancelledException): void> the handler's waits, while it waits */
    private array $subscribers = [];

    /** The connection stays open after the response. */
    public bool $keepAlive = true;
    /** A HEAD request: the response goes without its body. */
    public bool $head = false;
    public string $protocolVersion = '1.1';
    /** Bytes of the request as received, counted against the buffer budgets until it is answered. */
    public int $bytes = 0;
    /** When the handler's time is up (ServerOptions::$handlerTimeout after the request was read). */
    public float $deadline = \INF;

    /**
     * The fields above keep their defaults unless the request differs (ServerConnection sets
     * them): under the JIT every write to a typed property is a helper call of about 80
     * instructions, and a constructor with promoted parameters writes each of them. For the same
     * reason none of them is readonly (initializing one takes PHP's slow path).
     */
    public function __construct(
        public ServerConnection $connection,
        public ?Request $request,
    ) {}

    public function run(): void
    {
        $this->connection->runTask($this);
    }

    public function subscribe(\Closure $callback): int
    {
        if ($this->handlerDone) {
            return -1; // never requested: the limit was the handler's
        }
        if ($this->timedOut === null && $this->connection->now() >= $this->deadline) {
            $this->cancel();
        }
        if ($this->timedOut !== null) {
            $callback($this->timedOut);

            return -1;
        }
        if ($this->subscribers === []) {
            $this->connection->handlerWaits($this, true);
        }
        $this->subscribers[] = $callback;

        return array_key_last($this->subscribers);
    }

    public function unsubscribe(int $id): void
    {
        if (isset($this->subscribers[$id])) {
            unset($this->subscribers[$id]);
            if ($this->subscribers === []) {
                $this->connection->handlerWaits($this, false);
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
     * The handler's time is up: every wait of it ends with a CancelledException.
     */
    public function cancel(): void
    {
        if ($this->timedOut !== null) {
            return;
        }
        $timeout = new TimeoutException(\sprintf(
            'The handler of %s %s ran out of its time limit (ServerOptions::$handlerTimeout); its waits are cancelled and the client gets 503.',
            $this->request?->method() ?? '-',
            $this->request?->path() ?? '-',
        ));
        $cancelled = $this->timedOut = new CancelledException($timeout->getMessage(), 0, $timeout);
        $subscribers = $this->subscribers;
        $this->subscribers = [];
        if ($subscribers !== []) {
            $this->connection->handlerWaits($this, false);
        }
        foreach ($subscribers as $subscriber) {
            try {
                $subscriber($cancelled);
            } catch (\Throwable $e) {
                $this->connection->reportError($e);
            }
        }
    }
}
