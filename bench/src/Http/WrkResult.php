<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * What one wrk run reported. Latencies are in milliseconds; p99 is null when wrk ran without --latency.
 */
final readonly class WrkResult
{
    public function __construct(
        public float $rps,
        public float $avgMs,
        public float $stddevMs,
        public float $maxMs,
        public ?float $p99Ms,
        public int $requests,
        public int $connectErrors = 0,
        public int $readErrors = 0,
        public int $writeErrors = 0,
        public int $timeouts = 0,
        public int $non2xx = 0,
    ) {}

    /**
     * Socket errors other than timeouts: connect + read + write.
     */
    public function errors(): int
    {
        return $this->connectErrors + $this->readErrors + $this->writeErrors;
    }

    /**
     * Whether nothing went wrong: no socket error, no timeout, no non-2xx/3xx answer.
     */
    public function clean(): bool
    {
        return $this->errors() === 0 && $this->timeouts === 0 && $this->non2xx === 0;
    }
}
