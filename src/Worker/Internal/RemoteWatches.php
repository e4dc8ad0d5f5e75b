<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\Remote\Endpoint;

/**
 * Which local actors watch which actors on other workers: by worker, watched path and watcher
 * path. An entry goes when the watch ends (unwatch, Terminated, the worker lost), and a path or
 * worker with no watcher left goes with it, so the table holds only live watches.
 *
 * @internal
 */
final class RemoteWatches
{
    /** @var array<int, array<string, array<string, Endpoint>>> */
    private array $watches = [];
    private int $count = 0;

    public function add(int $worker, string $path, Endpoint $watcher): void
    {
        $watcherPath = $watcher->path();
        if (!isset($this->watches[$worker][$path][$watcherPath])) {
            ++$this->count;
        }
        $this->watches[$worker][$path][$watcherPath] = $watcher;
    }

    public function remove(int $worker, string $path, string $watcherPath): void
    {
        if (!isset($this->watches[$worker][$path][$watcherPath])) {
            return;
        }
        --$this->count;
        unset($this->watches[$worker][$path][$watcherPath]);
        if ($this->watches[$worker][$path] === []) {
            unset($this->watches[$worker][$path]);
            if ($this->watches[$worker] === []) {
                unset($this->watches[$worker]);
            }
        }
    }

    /**
     * Ends every watch of an actor on $worker and returns them: watched path => watchers.
     *
     * @return array<string, array<string, Endpoint>>
     */
    public function takeAll(int $worker): array
    {
        $watches = $this->watches[$worker] ?? [];
        unset($this->watches[$worker]);
        foreach ($watches as $watchers) {
            $this->count -= \count($watchers);
        }

        return $watches;
    }

    /**
     * Live watches (watcher, watched actor) in the table.
     */
    public function count(): int
    {
        return $this->count;
    }
}
