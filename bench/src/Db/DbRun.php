<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * What `make bench-db` measured for one server, worker count and link: every step of the rate
 * search, the highest rate held, and the run at the rate common to both servers.
 */
final readonly class DbRun
{
    public const LOOPBACK = 'loopback';
    public const PROXY = 'proxy';
    public const LINKS = [self::LOOPBACK, self::PROXY];

    /**
     * @param list<DbStep> $steps the rate search, in order
     */
    public function __construct(
        public string $server,
        public int $workers,
        public string $link,
        public array $steps = [],
        public ?DbStep $common = null,
        public ?int $idleRssBytes = null,
        public ?string $notMeasured = null,
    ) {}

    public static function notMeasured(string $server, int $workers, string $link, string $reason): self
    {
        return new self($server, $workers, $link, notMeasured: $reason);
    }

    public function withCommon(DbStep $common): self
    {
        return new self($this->server, $this->workers, $this->link, $this->steps, $common, $this->idleRssBytes, $this->notMeasured);
    }

    /**
     * The step at the highest rate held (< 1 % dropped), null when none was or nothing was measured.
     */
    public function best(): ?DbStep
    {
        $best = null;
        foreach ($this->steps as $step) {
            if ($step->result->held() && ($best === null || $step->result->rate > $best->result->rate)) {
                $best = $step;
            }
        }

        return $best;
    }

    public function bestRate(): ?float
    {
        return $this->best()?->result->rate;
    }

    /**
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        $best = $this->best();

        return [
            'server' => $this->server,
            'workers' => $this->workers,
            'link' => $this->link,
            'measured' => $this->notMeasured === null,
            'not_measured_reason' => $this->notMeasured,
            'rate' => $best?->result->rate,
            'throughput' => $best === null ? null : round($best->result->throughput, 2),
            'p50_ms' => $best?->result->toArray()['p50_ms'],
            'p95_ms' => $best?->result->toArray()['p95_ms'],
            'p99_ms' => $best?->result->toArray()['p99_ms'],
            'dropped_pct' => $best === null ? null : round($best->result->droppedPercent(), 3),
            'rss_bytes' => $best?->peakRssBytes,
            'idle_rss_bytes' => $this->idleRssBytes,
            'common' => $this->common?->toArray(),
            'search' => array_map(static fn(DbStep $s): array => $s->toArray(), $this->steps),
        ];
    }

    /**
     * @param array<mixed> $row
     */
    public static function fromArray(array $row): self
    {
        $server = $row['server'] ?? null;
        $workers = $row['workers'] ?? null;
        $link = $row['link'] ?? null;
        if (!\is_string($server) || !\is_int($workers) || !\is_string($link)) {
            throw new \UnexpectedValueException('A bench-db result needs server, workers and link.');
        }
        $steps = [];
        foreach (\is_array($row['search'] ?? null) ? $row['search'] : [] as $step) {
            if (\is_array($step)) {
                $steps[] = DbStep::fromArray($step);
            }
        }
        $common = \is_array($row['common'] ?? null) ? DbStep::fromArray($row['common']) : null;
        $idle = $row['idle_rss_bytes'] ?? null;
        $reason = $row['not_measured_reason'] ?? null;

        return new self($server, $workers, $link, $steps, $common, \is_int($idle) ? $idle : null, \is_string($reason) ? $reason : null);
    }
}
