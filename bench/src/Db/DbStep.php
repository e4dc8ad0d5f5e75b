<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * One load run against a server: the generator's result, the server's peak RSS (all its
 * processes) and CPU during it.
 */
final readonly class DbStep
{
    public function __construct(
        public LoadResult $result,
        public ?int $peakRssBytes,
        public ?float $serverCpuSeconds,
        public ?float $proxyCpuSeconds = null,
    ) {}

    public function proxyCpuShare(): ?float
    {
        return $this->proxyCpuSeconds === null || $this->result->wallSeconds <= 0.0 ? null : $this->proxyCpuSeconds / $this->result->wallSeconds;
    }

    public function serverCpuShare(): ?float
    {
        return $this->serverCpuSeconds === null || $this->result->wallSeconds <= 0.0 ? null : $this->serverCpuSeconds / $this->result->wallSeconds;
    }

    /**
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        return [
            ...$this->result->toArray(),
            'held' => $this->result->held(),
            'rss_bytes' => $this->peakRssBytes,
            'server_cpu_seconds' => $this->serverCpuSeconds === null ? null : round($this->serverCpuSeconds, 3),
            'proxy_cpu_seconds' => $this->proxyCpuSeconds === null ? null : round($this->proxyCpuSeconds, 3),
        ];
    }

    /**
     * @param array<mixed> $row
     */
    public static function fromArray(array $row): self
    {
        $rss = $row['rss_bytes'] ?? null;
        $cpu = $row['server_cpu_seconds'] ?? null;
        $proxy = $row['proxy_cpu_seconds'] ?? null;

        return new self(
            LoadResult::fromArray($row),
            \is_int($rss) ? $rss : null,
            \is_int($cpu) || \is_float($cpu) ? (float) $cpu : null,
            \is_int($proxy) || \is_float($proxy) ? (float) $proxy : null,
        );
    }
}
