<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * Binary min-heap of (due time, timer id). Cancelled timers are removed lazily: the loop skips ids
 * it no longer knows, and the heap is rebuilt when dead entries outnumber live ones.
 *
 * Timers due at the same instant come out in insertion order (a sequence number breaks ties).
 *
 * @internal
 */
final class TimerQueue
{
    /** @var array<int, float> */
    private array $due = [];
    /** @var array<int, int> */
    private array $ids = [];
    /** @var array<int, int> insertion sequence, the tie-break for equal due times */
    private array $seq = [];
    private int $size = 0;
    private int $nextSeq = 0;

    public function insert(int $id, float $due): void
    {
        $this->push($id, $due, $this->nextSeq++);
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
        $lastSeq = $this->seq[$last];
        unset($this->due[$last], $this->ids[$last], $this->seq[$last]);
        if ($last > 0) {
            $this->siftDown(0, $due, $lastId, $lastSeq);
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
        $seq = $this->seq;
        $this->due = [];
        $this->ids = [];
        $this->seq = [];
        $this->size = 0;
        foreach ($ids as $i => $id) {
            if ($alive($id)) {
                $this->push($id, $due[$i], $seq[$i]);
            }
        }
    }

    private function push(int $id, float $due, int $seq): void
    {
        $i = $this->size++;
        // sift up
        while ($i > 0) {
            $parent = ($i - 1) >> 1;
            if (!$this->before($due, $seq, $this->due[$parent], $this->seq[$parent])) {
                break;
            }
            $this->due[$i] = $this->due[$parent];
            $this->ids[$i] = $this->ids[$parent];
            $this->seq[$i] = $this->seq[$parent];
            $i = $parent;
        }
        $this->due[$i] = $due;
        $this->ids[$i] = $id;
        $this->seq[$i] = $seq;
    }

    private function siftDown(int $i, float $due, int $id, int $seq): void
    {
        $size = $this->size;
        while (true) {
            $child = 2 * $i + 1;
            if ($child >= $size) {
                break;
            }
            if ($child + 1 < $size
                && $this->before($this->due[$child + 1], $this->seq[$child + 1], $this->due[$child], $this->seq[$child])) {
                ++$child;
            }
            if (!$this->before($this->due[$child], $this->seq[$child], $due, $seq)) {
                break;
            }
            $this->due[$i] = $this->due[$child];
            $this->ids[$i] = $this->ids[$child];
            $this->seq[$i] = $this->seq[$child];
            $i = $child;
        }
        $this->due[$i] = $due;
        $this->ids[$i] = $id;
        $this->seq[$i] = $seq;
    }

    /**
     * Whether the entry (due $a, sequence $aSeq) comes out before (due $b, sequence $bSeq).
     */
    private function before(float $a, int $aSeq, float $b, int $bSeq): bool
    {
        return $a < $b || ($a === $b && $aSeq < $bSeq);
    }
}
