<?php

declare(strict_types=1);

namespace Nexus\Persistence\Projection;

use Nexus\Actor\Supervision\Backoff;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Query\EventEnvelope;
use Nexus\Persistence\Query\LiveQuery;
use Nexus\Runtime\Future;

/**
 * A projection: the events of a tag, in commit order, handed to $handler(EventEnvelope,
 * $transaction) page by page, each page in one transaction of the store together with the
 * projection's offset. A projection writing into the same database is therefore exactly-once:
 * a page is either applied with its offset or not at all, and a restart resumes after the last
 * committed page. ($transaction is the store's: a PDO for SQLite, a PgConnection for PostgreSQL.)
 *
 *     $projection = Projection::start($persistence, 'cart-totals', 'cart', function (EventEnvelope $e, \PDO $db): void {
 *         $db->prepare('UPDATE totals SET n = n + 1 WHERE cart = ?')->execute([$e->persistenceId]);
 *     });
 *
 * A handler that throws (or a store that fails) rolls its page back; the projection starts again
 * from the committed offset after a backoff, and says so in the log. Bounds: one page (the
 * query's page size) per transaction, one transaction at a time.
 */
final class Projection
{
    private ?LiveQuery $query = null;
    private bool $stopped = false;
    private int $offset = 0;
    private int $attempt = 0;
    private int $pages = 0;
    private ?int $timer = null;

    /**
     * @param \Closure $handler fn(EventEnvelope $event, mixed $transaction): void
     */
    private function __construct(
        private readonly Persistence $persistence,
        public readonly string $name,
        public readonly string $tag,
        private readonly \Closure $handler,
        private readonly Backoff $backoff,
    ) {}

    /**
     * @param \Closure $handler fn(EventEnvelope $event, mixed $transaction): void
     */
    public static function start(Persistence $persistence, string $name, string $tag, \Closure $handler, ?Backoff $backoff = null): self
    {
        Persistence::checkId($name, 'projection name');
        Persistence::checkId($tag, 'tag');
        $projection = new self($persistence, $name, $tag, $handler, $backoff ?? $persistence->settings->backoff);
        $projection->run();

        return $projection;
    }

    /**
     * The offset of the last event whose page was committed.
     */
    public function offset(): int
    {
        return $this->offset;
    }

    /**
     * Pages committed since start.
     */
    public function pages(): int
    {
        return $this->pages;
    }

    public function stop(): void
    {
        $this->stopped = true;
        $this->query?->cancel();
        $this->query = null;
        if ($this->timer !== null) {
            $this->persistence->system->loop->cancel($this->timer);
            $this->timer = null;
        }
    }

    private function run(): void
    {
        $store = $this->persistence->store;
        $store->loadOffset($this->name)->onSettle(function (?\Throwable $error, mixed $offset) use ($store): void {
            if ($this->stopped) {
                return;
            }
            if ($error !== null || !\is_int($offset)) {
                $this->retry($error ?? new \RuntimeException('The store gave no offset.'));

                return;
            }
            $this->offset = $offset;
            $this->query = $this->persistence->queries()->eventsByTag($this->tag, $offset, function (array $page) use ($store): Future {
                $last = $page[\count($page) - 1];
                $handler = $this->handler;
                $committed = $store->commitOffset($this->name, $last->offset, static function (mixed $transaction) use ($page, $handler): void {
                    foreach ($page as $envelope) {
                        $handler($envelope, $transaction);
                    }
                });
                $committed->onSettle(function (?\Throwable $error) use ($last): void {
                    if ($error === null) {
                        $this->offset = $last->offset;
                        $this->attempt = 0;
                        ++$this->pages;
                    }
                });

                return $committed;
            });
            $this->query->done()->onSettle(function (?\Throwable $error): void {
                $this->query = null;
                if ($error !== null && !$this->stopped) {
                    $this->retry($error);
                }
            });
        });
    }

    private function retry(\Throwable $error): void
    {
        $delay = $this->backoff->delay(++$this->attempt);
        $this->persistence->system->logger->warning('The projection {name} failed ({error}); it starts again from offset {offset} in {delay} s.', [
            'name' => $this->name,
            'error' => $error->getMessage(),
            'offset' => $this->offset,
            'delay' => round($delay, 3),
        ]);
        $this->timer = $this->persistence->system->loop->delay($delay, function (): void {
            $this->timer = null;
            if (!$this->stopped) {
                $this->run();
            }
        });
    }
}
