<?php

declare(strict_types=1);

namespace Nexus\Persistence\Query;

use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * A running query: it reads a page of events after its position, hands it to the consumer,
 * waits for the consumer's future (if it returned one), and reads on; at the end of what is
 * stored it waits until this process commits matching events or the poll interval passes (for
 * writes of other processes). Pages come in commit order, none skipped, each exactly once.
 *
 * Bounds: one page (at most $pageSize events) in memory and one read in flight. A store that
 * fails is retried after the poll interval (logged once per outage). What cannot go on ends the
 * query and fails done(): an event that does not decode (skipping it would break the promise
 * that nothing is skipped), or a consumer that throws or whose future fails.
 *
 * @internal made by EventQueries
 */
final class LiveQuery
{
    private bool $reading = false;
    private bool $again = false;
    private bool $stopped = false;
    private ?int $timer = null;
    private bool $outage = false;
    /** @var Deferred<null> */
    private readonly Deferred $done;

    /**
     * @param \Closure(int, int): Future<list<PersistedEvent>> $read     (position, max) -> events after it
     * @param \Closure(PersistedEvent): int                      $advance  the position after an event
     * @param \Closure(PersistedEvent): EventEnvelope            $decode
     * @param \Closure(list<EventEnvelope>): mixed               $consumer
     * @param \Closure(LiveQuery): void                          $onStop
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly LoggerInterface $logger,
        private readonly string $description,
        private int $position,
        private readonly int $pageSize,
        private readonly float $pollInterval,
        private readonly \Closure $read,
        private readonly \Closure $advance,
        private readonly \Closure $decode,
        private readonly \Closure $consumer,
        private readonly \Closure $onStop,
    ) {
        $this->done = new Deferred($loop);
        $this->loop->defer($this->poll(...));
    }

    /**
     * Where the query stands: the offset (or sequence number) of the last event handed over.
     */
    public function position(): int
    {
        return $this->position;
    }

    /**
     * Settles when the query ends: fulfilled after cancel(), rejected with what ended it.
     *
     * @return Future<null>
     */
    public function done(): Future
    {
        return $this->done->future();
    }

    public function isRunning(): bool
    {
        return !$this->stopped;
    }

    public function cancel(): void
    {
        $this->stop(null);
    }

    /**
     * @internal events this process committed may concern this query: read now
     */
    public function wake(): void
    {
        if ($this->stopped) {
            return;
        }
        if ($this->reading) {
            $this->again = true;

            return;
        }
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
            $this->loop->defer($this->poll(...));
        }
    }

    private function poll(): void
    {
        if ($this->stopped || $this->reading) {
            return;
        }
        $this->reading = true;
        $this->again = false;
        ($this->read)($this->position, $this->pageSize)->onSettle(function (?\Throwable $error, mixed $events): void {
            if ($this->stopped) {
                return;
            }
            if ($error !== null || !\is_array($events)) {
                $this->reading = false;
                $this->storeFailed($error ?? new StoreUnavailableException('The store gave no events.'));

                return;
            }
            if ($this->outage) {
                $this->outage = false;
                $this->logger->info('{query} reads again.', ['query' => $this->description]);
            }
            $this->deliver($events);
        });
    }

    /**
     * @param array<mixed> $events
     */
    private function deliver(array $events): void
    {
        if ($events === []) {
            $this->reading = false;
            $this->waitForMore();

            return;
        }
        $page = [];
        $position = $this->position;
        try {
            foreach ($events as $event) {
                \assert($event instanceof PersistedEvent);
                $page[] = ($this->decode)($event);
                $position = ($this->advance)($event);
            }
            $result = ($this->consumer)($page);
        } catch (\Throwable $e) {
            $this->stop($e);

            return;
        }
        $full = \count($events) >= $this->pageSize;
        $next = function () use ($position, $full): void {
            $this->position = $position;
            $this->reading = false;
            if ($full || $this->again) {
                $this->loop->defer($this->poll(...));
            } else {
                $this->waitForMore();
            }
        };
        if ($result instanceof Future) {
            $result->onSettle(function (?\Throwable $error) use ($next): void {
                if ($error !== null) {
                    $this->stop($error);
                } elseif (!$this->stopped) {
                    $next();
                }
            });
        } else {
            $next();
        }
    }

    private function waitForMore(): void
    {
        if ($this->stopped) {
            return;
        }
        if ($this->again) {
            $this->loop->defer($this->poll(...));

            return;
        }
        // Referenced: a running query is work the loop is there for, until it is cancelled.
        $this->timer = $this->loop->delay($this->pollInterval, function (): void {
            $this->timer = null;
            $this->poll();
        });
    }

    private function storeFailed(\Throwable $error): void
    {
        if (!$error instanceof StoreUnavailableException && $error instanceof PersistenceException) {
            $this->stop($error);

            return;
        }
        if (!$this->outage) {
            $this->outage = true;
            $this->logger->warning('{query} cannot read ({error}); it retries every {interval} s.', [
                'query' => $this->description,
                'error' => $error->getMessage(),
                'interval' => $this->pollInterval,
            ]);
        }
        $this->waitForMore();
    }

    private function stop(?\Throwable $error): void
    {
        if ($this->stopped) {
            return;
        }
        $this->stopped = true;
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
        ($this->onStop)($this);
        if ($error === null) {
            $this->done->tryResolve(null);
        } else {
            $this->logger->error('{query} stopped: {error}', ['query' => $this->description, 'error' => $error->getMessage(), 'exception' => $error]);
            $this->done->tryReject($error);
        }
    }
}
