<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * Binary min-heap of (due time, timer id). Cancelled timers are removed lazily: the loop skips ids
 * it no longer knows, and the heap is rebuilt when dead entries outnumber live ones.
 *
 * @internal
 */
final class TimerQueue
{
    /** @var array<int, float> */
    private array $due = [];
    /** @var array<int, int> */
    private array $ids = [];
    private int $size = 0;

    public function insert(int $id, float $due): void
    {
        $i = $this->size++;
        $this->due[$i] = $due;
        $this->ids[$i] = $id;
        // sift up
        while ($i > 0) {
            $parent = ($i - 1) >> 1;
            if ($this->due[$parent] <= $due) {
                break;
            }
            $this->due[$i] = $this->due[$parent];
            $this->ids[$i] = $this->ids[$parent];
            $i = $parent;
        }
        $this->due[$i] = $due;
        $this->ids[$i] = $id;
    }

    public function isEmpty(): bool
    {
        return $this->size === 0;
    }

    public function count(): int
    {
        return $this->size;
    }

    public function peekDue(): ?float
    {
        return $this->size === 0 ? null : $this->due[0];
    }

    public function peekId(): int
    {
        return $this->ids[0];
    }

    public function extract(): int
    {
        $id = $this->ids[0];
        $last = --$this->size;
        $due = $this->due[$last];
        $lastId = $this->ids[$last];
        unset($this->due[$last], $this->ids[$last]);
        if ($last > 0) {
            $this->siftDown(0, $due, $lastId);
        }

        return $id;
    }

    /**
     * Keeps only the ids for which $alive returns true.
     *
     * @param \Closure(int): bool $alive
     */
    public function retain(\Closure $alive): void
    {
        $due = $this->due;
        $ids = $this->ids;
        $this->due = [];
        $this->ids = [];
        $this->size = 0;
        foreach ($ids as $i => $id) {
            if ($alive($id)) {
                $this->insert($id, $due[$i]);
            }
        }
    }

    private function siftDown(int $i, float $due, int $id): void
    {
        $size = $this->size;
        while (true) {
            $child = 2 * $i + 1;
            if ($child >= $size) {
                break;
            }
            if ($child + 1 < $size && $this->due[$child + 1] < $this->due[$child]) {
                ++$child;
            }
            if ($this->due[$child] >= $due) {
                break;
            }
            $this->due[$i] = $this->due[$child];
            $this->ids[$i] = $this->ids[$child];
            $i = $child;
        }
        $this->due[$i] = $due;
        $this->ids[$i] = $id;
    }
}
