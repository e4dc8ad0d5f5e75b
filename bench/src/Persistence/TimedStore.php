<?php

declare(strict_types=1);

namespace Nexus\Bench\Persistence;

use Nexus\Persistence\Store\Store;
use Nexus\Runtime\Future;

/**
 * A store that counts how long its journal writes and reads take until their futures settle:
 * for the blocking SQLite store, the time the loop spent inside SQLite. It passes everything on
 * unchanged.
 */
final class TimedStore implements Store
{
    public float $writeSeconds = 0.0;
    public float $readSeconds = 0.0;
    public int $writes = 0;

    public function __construct(private readonly Store $store) {}

    public function writeEvents(array $writes): Future
    {
        ++$this->writes;
        $started = hrtime(true);

        return $this->timed($this->store->writeEvents($writes), $this->writeSeconds, $started);
    }

    public function readEvents(string $persistenceId, int $fromSequenceNr, int $toSequenceNr, int $max): Future
    {
        $started = hrtime(true);

        return $this->timed($this->store->readEvents($persistenceId, $fromSequenceNr, $toSequenceNr, $max), $this->readSeconds, $started);
    }

    public function highestSequenceNr(string $persistenceId): Future
    {
        return $this->store->highestSequenceNr($persistenceId);
    }

    public function deleteEvents(string $persistenceId, int $toSequenceNr): Future
    {
        return $this->store->deleteEvents($persistenceId, $toSequenceNr);
    }

    public function readEventsByTag(string $tag, int $afterOffset, int $max): Future
    {
        return $this->store->readEventsByTag($tag, $afterOffset, $max);
    }

    public function close(): void
    {
        $this->store->close();
    }

    public function saveSnapshots(array $snapshots, int $keep): Future
    {
        return $this->store->saveSnapshots($snapshots, $keep);
    }

    public function loadSnapshot(string $persistenceId, int $maxSequenceNr = \PHP_INT_MAX): Future
    {
        return $this->store->loadSnapshot($persistenceId, $maxSequenceNr);
    }

    public function deleteSnapshots(string $persistenceId, int $maxSequenceNr): Future
    {
        return $this->store->deleteSnapshots($persistenceId, $maxSequenceNr);
    }

    public function loadState(string $persistenceId): Future
    {
        return $this->store->loadState($persistenceId);
    }

    public function writeStates(array $states): Future
    {
        return $this->store->writeStates($states);
    }

    public function deleteState(string $persistenceId): Future
    {
        return $this->store->deleteState($persistenceId);
    }

    public function loadOffset(string $projection): Future
    {
        return $this->store->loadOffset($projection);
    }

    public function commitOffset(string $projection, int $offset, \Closure $work): Future
    {
        return $this->store->commitOffset($projection, $offset, $work);
    }

    /**
     * @template T
     *
     * @param Future<T> $future
     *
     * @return Future<T>
     */
    private function timed(Future $future, float &$total, int|float $started): Future
    {
        if ($future->isSettled()) {
            $total += (hrtime(true) - $started) / 1e9;

            return $future;
        }
        $future->onSettle(static function () use (&$total, $started): void {
            $total += (hrtime(true) - $started) / 1e9;
        });

        return $future;
    }
}
