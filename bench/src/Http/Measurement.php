<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * One wrk run against one server and route, with the CPU that wrk and the server used meanwhile.
 */
final readonly class Measurement
{
    public function __construct(
        public string $server,
        public string $route,
        public int $connections,
        public int $threads,
        public float $durationSeconds,
        public WrkResult $wrk,
        public ?float $wrkCpuSeconds,
        public ?float $serverCpuSeconds,
        public ?float $wallSeconds = null,
    ) {}

    /**
     * wrk's CPU seconds per second of the run (1.0 = one full core), or null when unknown.
     */
    public function wrkCpuShare(): ?float
    {
        return self::share($this->wrkCpuSeconds, $this->wallSeconds ?? $this->durationSeconds);
    }

    /**
     * The server's CPU seconds (all its processes) per second of the run, or null when unknown.
     */
    public function serverCpuShare(): ?float
    {
        return self::share($this->serverCpuSeconds, $this->wallSeconds ?? $this->durationSeconds);
    }

    /**
     * One line of bench/results/http.json.
     *
     * @return array<string, int|float|string|null>
     */
    public function toArray(): array
    {
        return [
            'server' => $this->server,
            'route' => $this->route,
            'connections' => $this->connections,
            'rps' => round($this->wrk->rps, 2),
            'avg_ms' => round($this->wrk->avgMs, 4),
            'stddev_ms' => round($this->wrk->stddevMs, 4),
            'p99_ms' => $this->wrk->p99Ms === null ? null : round($this->wrk->p99Ms, 4),
            'max_ms' => round($this->wrk->maxMs, 4),
            'errors' => $this->wrk->errors(),
            'timeouts' => $this->wrk->timeouts,
            'non2xx' => $this->wrk->non2xx,
            'connect_errors' => $this->wrk->connectErrors,
            'read_errors' => $this->wrk->readErrors,
            'write_errors' => $this->wrk->writeErrors,
            'requests' => $this->wrk->requests,
            'threads' => $this->threads,
            'duration_s' => $this->durationSeconds,
            'wrk_cpu_s' => $this->wrkCpuSeconds === null ? null : round($this->wrkCpuSeconds, 3),
            'server_cpu_s' => $this->serverCpuSeconds === null ? null : round($this->serverCpuSeconds, 3),
            'wall_s' => $this->wallSeconds === null ? null : round($this->wallSeconds, 3),
        ];
    }

    /**
     * @param array<mixed> $row a decoded line of bench/results/http.json
     */
    public static function fromArray(array $row): self
    {
        $string = static function (string $key) use ($row): string {
            $value = $row[$key] ?? null;
            if (!\is_string($value)) {
                throw new \UnexpectedValueException("http.json: '{$key}' must be a string.");
            }

            return $value;
        };
        $number = static function (string $key, bool $nullable = false) use ($row): ?float {
            $value = $row[$key] ?? null;
            if ($value === null && $nullable) {
                return null;
            }
            if (!\is_int($value) && !\is_float($value)) {
                throw new \UnexpectedValueException("http.json: '{$key}' must be a number.");
            }

            return (float) $value;
        };
        $int = static fn(string $key): int => (int) $number($key);

        return new self(
            $string('server'),
            $string('route'),
            $int('connections'),
            isset($row['threads']) ? $int('threads') : 1,
            isset($row['duration_s']) ? (float) $number('duration_s') : 0.0,
            new WrkResult(
                (float) $number('rps'),
                (float) $number('avg_ms'),
                (float) $number('stddev_ms'),
                (float) $number('max_ms'),
                $number('p99_ms', true),
                isset($row['requests']) ? $int('requests') : 0,
                isset($row['connect_errors']) ? $int('connect_errors') : $int('errors'),
                isset($row['read_errors']) ? $int('read_errors') : 0,
                isset($row['write_errors']) ? $int('write_errors') : 0,
                $int('timeouts'),
                $int('non2xx'),
            ),
            $number('wrk_cpu_s', true),
            $number('server_cpu_s', true),
            $number('wall_s', true),
        );
    }

    private static function share(?float $cpuSeconds, float $seconds): ?float
    {
        return $cpuSeconds === null || $seconds <= 0.0 ? null : $cpuSeconds / $seconds;
    }
}
