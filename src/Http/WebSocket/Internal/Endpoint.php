<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Internal;

use Nexus\Http\Handler\InvalidReturnValueException;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\WebSocket\Handshake;
use Nexus\Http\WebSocket\WebSocketHandler;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * A WebSocket route, compiled: the end of the route's pipeline (after its middleware), and the
 * keeper of its open connections.
 *
 * handle() runs the handshake (Handshake: 426 for a plain GET, 400, 426 with the version, 403 for
 * an origin not allowed), then the route's factory with its arguments resolved (its exceptions
 * become HTTP answers through the ErrorHandler, as for any route), and answers 101 with a
 * PendingUpgrade; the HTTP server writes the 101 and hands the socket over.
 *
 * One sweep timer per route, running while it has connections, replaces a timer per connection:
 * it sends the pings and closes idle connections (WebSocketConnection::checkIdle()) and cancels
 * callbacks past their time limit.
 *
 * @internal
 */
final class Endpoint implements RequestHandler
{
    /** See runsNow(). */
    private const RUN_EVERY = 8;

    /** @var array<int, Session> connections open, by object id */
    private array $open = [];
    /** @var array<int, Session> sessions whose running callback waits, by object id */
    private array $waiting = [];
    private ?Loop $loop = null;
    private ?int $sweepTimer = null;
    /** The loop turn (its time) of the last message, and the messages scheduled in it. */
    private float $turn = -1.0;
    private int $scheduledInTurn = 0;
    private readonly float $sweepInterval;

    /**
     * @param (\Closure(Request): mixed)|null $factory the route's handler factory with its arguments resolved
     */
    public function __construct(
        private readonly Handshake $handshake,
        private readonly ?WebSocketHandler $shared,
        private readonly ?\Closure $factory,
        public readonly WebSocketOptions $options,
        public readonly LoggerInterface $logger,
        public readonly string $route,
    ) {
        $periods = [$options->handlerTimeout];
        foreach ([$options->pingInterval, $options->idleTimeout] as $period) {
            if ($period > 0.0) {
                $periods[] = $period;
            }
        }
        $this->sweepInterval = max(0.01, min(1.0, min($periods) / 4));
    }

    public function handle(Request $request): Response
    {
        $result = $this->handshake->negotiate($request);
        if (!$result->isAccepted()) {
            return $result->response;
        }
        $handler = $this->shared;
        if ($handler === null) {
            \assert($this->factory !== null);
            $made = ($this->factory)($request);
            if ($made instanceof Response) {
                if ($made->status < 200) {
                    throw new InvalidReturnValueException("The factory of WebSocket route {$this->route} answered {$made->status}; return a WebSocketHandler to accept the connection, or a 4xx/5xx Response to refuse it.");
                }

                return $made; // the application refused the connection
            }
            if (!$made instanceof WebSocketHandler) {
                throw new InvalidReturnValueException(\sprintf('The factory of WebSocket route %s returned %s; return a WebSocketHandler (or a Response to refuse the connection).', $this->route, get_debug_type($made)));
            }
            $handler = $made;
        }

        return Response::switchingProtocols($result->response->headers, new PendingUpgrade($this, $handler, $result));
    }

    /**
     * Connections open on this route.
     */
    public function connectionCount(): int
    {
        return \count($this->open);
    }

    /**
     * Whether the scheduler should run right away for a message that arrived in the loop turn
     * $turn (Loop::now()): for the first one of a turn and every RUN_EVERY-th after it. Without
     * this, a turn reads every ready socket before any handler runs, and the clients wait with
     * nothing to do until the first answer (on two cores an echo server and its client were each
     * busy 72% of the time); running the scheduler for every message costs a fiber switch each.
     */
    public function runsNow(float $turn): bool
    {
        if ($turn !== $this->turn) {
            $this->turn = $turn;
            $this->scheduledInTurn = 0;

            return true;
        }

        return ++$this->scheduledInTurn % self::RUN_EVERY === 0;
    }

    public function opened(Session $session, Loop $loop): void
    {
        $this->open[spl_object_id($session)] = $session;
        if ($this->sweepTimer === null) {
            $this->loop = $loop;
            $this->sweepTimer = $loop->repeat($this->sweepInterval, $this->sweep(...));
            $loop->unreference($this->sweepTimer);
        }
    }

    public function closed(Session $session): void
    {
        unset($this->open[spl_object_id($session)]);
        $this->stopSweepWhenIdle();
    }

    /**
     * The running callback of $session waits (its deadline is swept) or no longer.
     */
    public function waits(Session $session, bool $waits): void
    {
        if ($waits) {
            $this->waiting[spl_object_id($session)] = $session;
        } else {
            unset($this->waiting[spl_object_id($session)]);
            $this->stopSweepWhenIdle();
        }
    }

    private function sweep(): void
    {
        \assert($this->loop !== null);
        $now = $this->loop->now();
        foreach ($this->open as $session) {
            $connection = $session->connection;
            if ($connection->idleDeadline <= $now) {
                $connection->checkIdle($now);
            }
        }
        foreach ($this->waiting as $session) {
            if ($session->deadline <= $now) {
                $session->cancel();
            }
        }
    }

    private function stopSweepWhenIdle(): void
    {
        if ($this->open === [] && $this->waiting === [] && $this->sweepTimer !== null) {
            $this->loop?->cancel($this->sweepTimer);
            $this->sweepTimer = null;
        }
    }
}
