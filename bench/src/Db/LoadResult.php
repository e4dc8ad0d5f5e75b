<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * What one constant-rate load run measured (its measuring window only, not the warm-up).
 * Latencies are in milliseconds from each request's scheduled start.
 */
final readonly class LoadResult
{
    /** A rate is held when fewer than this share of the requests were dropped (and failed). */
    public const MAX_DROPPED_PERCENT = 1.0;
    /** ...and the responses kept up with the schedule to within this share. */
    public const MIN_THROUGHPUT_SHARE = 0.95;

    public function __construct(
        public float $rate,
        public float $duration,
        public int $scheduled,
        public int $ok,
        public int $errors,
        public int $dropped,
        public int $timeouts,
        public float $throughput,
        public ?float $p50Ms,
        public ?float $p95Ms,
        public ?float $p99Ms,
        public ?float $maxMs,
        public float $cpuSeconds,
        public float $wallSeconds,
        public int $connections,
        public string $firstError = '',
    ) {}

    public function droppedPercent(): float
    {
        return $this->scheduled === 0 ? 0.0 : 100.0 * $this->dropped / $this->scheduled;
    }

    /**
     * Failed requests (error answers, broken connections, no answer before the drain deadline).
     */
    public function errorPercent(): float
    {
        return $this->scheduled === 0 ? 0.0 : 100.0 * ($this->errors + $this->timeouts) / $this->scheduled;
    }

    /**
     * The generator's own CPU over the run: 1.0 = one full core.
     */
    public function cpuShare(): float
    {
        return $this->wallSeconds > 0.0 ? $this->cpuSeconds / $this->wallSeconds : 0.0;
    }

    public function held(): bool
    {
        return $this->scheduled > 0
            && $this->droppedPercent() < self::MAX_DROPPED_PERCENT
            && $this->errorPercent() < self::MAX_DROPPED_PERCENT
            && $this->throughput >= self::MIN_THROUGHPUT_SHARE * $this->rate;
    }

    /**
     * @return array<string, float|int|string|null>
     */
    public function toArray(): array
    {
        return [
            'rate' => $this->rate,
            'duration' => $this->duration,
            'scheduled' => $this->scheduled,
            'ok' => $this->ok,
            'errors' => $this->errors,
            'dropped' => $this->dropped,
            'timeouts' => $this->timeouts,
            'throughput' => round($this->throughput, 2),
            'p50_ms' => self::round($this->p50Ms),
            'p95_ms' => self::round($this->p95Ms),
            'p99_ms' => self::round($this->p99Ms),
            'max_ms' => self::round($this->maxMs),
            'dropped_pct' => round($this->droppedPercent(), 3),
            'error_pct' => round($this->errorPercent(), 3),
            'cpu_seconds' => round($this->cpuSeconds, 3),
            'wall_seconds' => round($this->wallSeconds, 3),
            'connections' => $this->connections,
            'first_error' => $this->firstError,
        ];
    }

    /**
     * @param array<mixed> $row
     */
    public static function fromArray(array $row): self
    {
        $float = static function (string $key) use ($row): float {
            $value = $row[$key] ?? null;
            if (!\is_int($value) && !\is_float($value)) {
                throw new \UnexpectedValueException("Load result field '{$key}' must be a number.");
            }

            return (float) $value;
        };
        $optional = static fn(string $key): ?float => ($row[$key] ?? null) === null ? null : $float($key);
        $int = static fn(string $key): int => (int) $float($key);
        $error = $row['first_error'] ?? '';

        return new self(
            $float('rate'),
            $float('duration'),
            $int('scheduled'),
            $int('ok'),
            $int('errors'),
            $int('dropped'),
            $int('timeouts'),
            $float('throughput'),
            $optional('p50_ms'),
            $optional('p95_ms'),
            $optional('p99_ms'),
            $optional('max_ms'),
            $float('cpu_seconds'),
            $float('wall_seconds'),
            $int('connections'),
            \is_string($error) ? $error : '',
        );
    }

    private static function round(?float $value): ?float
    {
        return $value === null ? null : round($value, 3);
    }
}
