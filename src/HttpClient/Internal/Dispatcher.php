<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\Exception\ClientClosedException;
use Nexus\HttpClient\Exception\TimeoutKind;
use Nexus\HttpClient\Resolver;
use Nexus\Pool\KeyedConnectionPool;
use Nexus\Pool\PoolConnector;
use Nexus\Pool\PoolOptions;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Loop;

/**
 * Runs exchanges: lends each a connection from its origin's pool (an idle one at once when there
 * is one, else through the pool's wait queue), takes the connection back when the exchange is
 * done, and enforces every exchange's deadlines with a single timer.
 *
 * The timer is armed for the earliest deadline among the exchanges in flight; when it fires, the
 * exchanges past a deadline fail with their timeout and it is armed again for the next one. A
 * deadline that only moves later (an idle deadline refreshed by every byte) costs no timer
 * operation, so a request costs none in the common case.
 *
 * @internal
 */
final class Dispatcher
{
    /** @var KeyedConnectionPool<HttpConnection> */
    public readonly KeyedConnectionPool $pools;
    /** ClientOptions::$instrumented: count durations in ClientMetrics */
    public readonly bool $instrumented;
    /** @var array<int, Exchange> exchanges in flight, by id */
    private array $active = [];
    private int $nextId = 0;
    private ?int $timer = null;
    private float $timerAt = \INF;
    private bool $closed = false;

    public function __construct(
        private readonly Loop $loop,
        ClientOptions $options,
        Resolver $resolver,
    ) {
        $this->instrumented = $options->instrumented;
        $this->pools = new KeyedConnectionPool(
            $loop,
            static fn(string $origin): PoolConnector => new OriginConnector($loop, Target::of($origin), $options, $resolver),
            new PoolOptions(
                maxSize: $options->maxConnectionsPerOrigin,
                acquireTimeout: $options->acquireTimeout,
                maxWaiters: $options->maxWaiters,
                idleTimeout: $options->keepAliveTimeout,
            ),
            $options->maxConnections,
            'HTTP client pool',
        );
    }

    public function nextId(): int
    {
        return $this->nextId++;
    }

    /**
     * Starts a new exchange.
     */
    public function send(Exchange $exchange): void
    {
        if ($this->closed) {
            $exchange->fail(new ClientClosedException('The HTTP client is closed: create a new one to send requests.'));

            return;
        }
        if ($exchange->phase === Exchange::DONE) {
            return; // failed already: its cancellation was requested before it started
        }
        $this->active[$exchange->id] = $exchange;
        $this->deadlineAt($exchange->totalDeadline);
        $this->dispatch($exchange);
    }

    /**
     * Finds $exchange a connection (again, after a retry).
     */
    public function dispatch(Exchange $exchange): void
    {
        $origin = $exchange->target->origin;
        $connection = $this->pools->tryAcquire($origin);
        if ($connection !== null) {
            $exchange->start($connection);

            return;
        }
        $cancel = new DeferredCancellation($this->loop);
        $exchange->acquireCancel = $cancel;
        try {
            $future = $this->pools->acquire($origin, $cancel->cancellation());
        } catch (\Throwable $e) {
            $exchange->fail($e);

            return;
        }
        $future->onSettle(function (?\Throwable $error, mixed $connection) use ($exchange, $cancel, $origin): void {
            if ($exchange->acquireCancel === $cancel) {
                $exchange->acquireCancel = null;
            }
            if ($error !== null) {
                $exchange->fail($error);

                return;
            }
            \assert($connection instanceof HttpConnection);
            if ($exchange->phase === Exchange::DONE) {
                $this->pools->release($origin, $connection);

                return;
            }
            $exchange->start($connection);
        });
    }

    /**
     * $exchange is done; its connection (if it had one) goes back to the pool or is closed.
     */
    public function finished(Exchange $exchange, ?HttpConnection $connection, bool $reusable): void
    {
        unset($this->active[$exchange->id]);
        if ($connection !== null) {
            $this->giveBack($connection, $reusable);
        }
        if ($this->active === [] && $this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
            $this->timerAt = \INF;
        }
    }

    public function giveBack(HttpConnection $connection, bool $reusable): void
    {
        if ($reusable && !$connection->closed) {
            $this->pools->release($connection->origin, $connection);
        } else {
            $this->pools->discard($connection->origin, $connection);
        }
    }

    /**
     * Some exchange has a deadline at $at: make sure the timer fires by then.
     */
    public function deadlineAt(float $at): void
    {
        if ($at >= $this->timerAt || $at === \INF) {
            return;
        }
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
        }
        $this->timerAt = $at;
        $this->timer = $this->loop->delay(max(0.0, $at - $this->loop->now()), $this->sweep(...));
    }

    /**
     * @phpstan-impure
     */
    public function inFlight(): int
    {
        return \count($this->active);
    }

    /**
     * Fails every exchange in flight with ClientClosedException and closes every connection.
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        foreach ($this->active as $exchange) {
            $exchange->fail(new ClientClosedException('The HTTP client was closed while this request was in flight.'));
        }
        $this->pools->close();
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
            $this->timerAt = \INF;
        }
    }

    private function sweep(): void
    {
        $this->timer = null;
        $this->timerAt = \INF;
        $now = $this->loop->now();
        $next = \INF;
        foreach ($this->active as $exchange) {
            if ($exchange->totalDeadline <= $now) {
                $exchange->timedOut(TimeoutKind::Total);
            } elseif ($exchange->deadline <= $now) {
                $exchange->timedOut($exchange->deadlineKind);
            } else {
                $next = min($next, $exchange->deadline, $exchange->totalDeadline);
            }
        }
        if ($next !== \INF) {
            $this->deadlineAt($next);
        }
    }
}
