<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * Everything one `make bench-db` run measured.
 */
final readonly class DbBenchOutcome
{
    /**
     * @param list<DbRun>          $runs
     * @param array<string, float> $baselineMs link => ms of one request's 10 queries back to back
     */
    public function __construct(
        public array $runs,
        public array $baselineMs,
        public float $generatorCpuMax,
        public string $postgresVersion,
    ) {}

    /**
     * @param array<string, mixed> $meta
     *
     * @return array<string, mixed>
     */
    public function toArray(array $meta = []): array
    {
        return [
            ...$meta,
            'postgres' => $this->postgresVersion,
            'baseline_ms' => array_map(static fn(float $ms): float => round($ms, 3), $this->baselineMs),
            'generator_cpu_max' => round($this->generatorCpuMax, 3),
            'results' => array_map(static fn(DbRun $r): array => $r->toArray(), $this->runs),
        ];
    }

    /**
     * @param array<mixed> $document
     */
    public static function fromArray(array $document): self
    {
        $runs = [];
        foreach (\is_array($document['results'] ?? null) ? $document['results'] : [] as $row) {
            if (\is_array($row)) {
                $runs[] = DbRun::fromArray($row);
            }
        }
        $baseline = [];
        foreach (\is_array($document['baseline_ms'] ?? null) ? $document['baseline_ms'] : [] as $link => $ms) {
            if (\is_string($link) && (\is_int($ms) || \is_float($ms))) {
                $baseline[$link] = (float) $ms;
            }
        }
        $cpu = $document['generator_cpu_max'] ?? 0.0;
        $version = $document['postgres'] ?? '';

        return new self($runs, $baseline, \is_int($cpu) || \is_float($cpu) ? (float) $cpu : 0.0, \is_string($version) ? $version : '');
    }
}
