<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * How `make bench-db` runs: what to measure and how long each load step lasts.
 */
final readonly class DbBenchSettings
{
    /**
     * @param list<string>       $servers
     * @param list<int>          $workers
     * @param list<string>       $links
     * @param array<string, int> $startRates link => first rate of the search
     */
    public function __construct(
        public array $servers = DbServers::ALL,
        public array $workers = [1, 2, 4],
        public array $links = DbRun::LINKS,
        public float $duration = 4.0,
        public float $warmup = 1.0,
        public float $drain = 2.0,
        public array $startRates = [DbRun::LOOPBACK => 100, DbRun::PROXY => 25],
        public int $maxRate = 8000,
        public float $factor = 2.0,
        public float $precision = 0.1,
        public int $maxSteps = 8,
        public int $maxInFlight = 256,
        public float $delayMs = 1.0,
        public int $poolSize = 16,
        public bool $common = true,
    ) {
        if ($servers === [] || array_diff($servers, DbServers::ALL) !== []) {
            throw new \InvalidArgumentException('--servers must list some of: ' . implode(', ', DbServers::ALL) . '.');
        }
        if ($links === [] || array_diff($links, DbRun::LINKS) !== []) {
            throw new \InvalidArgumentException('--links must list some of: ' . implode(', ', DbRun::LINKS) . '.');
        }
        foreach ($workers as $count) {
            if ($count < 1 || $count > 64) {
                throw new \InvalidArgumentException("--workers must be between 1 and 64, got {$count}.");
            }
        }
        if ($workers === [] || $duration <= 0.0 || $warmup < 0.0 || $drain < 0.0 || $delayMs < 0.0 || $poolSize < 1) {
            throw new \InvalidArgumentException('--workers needs at least one count, --duration must be > 0, --warmup, --drain and --delay-ms >= 0, --pool >= 1.');
        }
    }

    /**
     * The rate search for one link.
     */
    public function search(string $link): RateSearch
    {
        $start = min($this->maxRate, $this->startRates[$link] ?? 50);

        return new RateSearch($start, $this->maxRate, $this->factor, $this->precision, $this->maxSteps);
    }

    /**
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        return [
            'servers' => $this->servers,
            'workers' => $this->workers,
            'links' => $this->links,
            'duration' => $this->duration,
            'warmup' => $this->warmup,
            'drain' => $this->drain,
            'start_rate' => implode(' (loopback) / ', [$this->startRates[DbRun::LOOPBACK] ?? 50, ($this->startRates[DbRun::PROXY] ?? 50) . ' (proxy)']),
            'max_rate' => $this->maxRate,
            'factor' => $this->factor,
            'precision' => $this->precision,
            'max_steps' => $this->maxSteps,
            'max_in_flight' => $this->maxInFlight,
            'delay_ms' => $this->delayMs,
            'pool' => $this->poolSize,
        ];
    }
}
