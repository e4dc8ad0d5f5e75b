<?php

declare(strict_types=1);

namespace Nexus\Bench\HttpClient;

/**
 * One run of one client in `make bench-http-client`: what bench/http-client/client.php printed,
 * plus the round, the mode (load: many requests in flight; warm: one at a time on one warm
 * connection) and nginx's CPU seconds over the client process's life.
 */
final readonly class ClientRun
{
    public const LOAD = 'load';
    public const WARM = 'warm';

    public function __construct(
        public string $client,
        public string $mode,
        public int $round,
        public int $concurrency,
        public int $requests,
        public int $allRequests,
        public int $errors,
        public float $seconds,
        public float $rps,
        public float $p50Us,
        public float $p99Us,
        public float $meanUs,
        public float $clientCpuSeconds,
        public ?float $serverCpuSeconds,
    ) {}

    /**
     * @param array<mixed> $row
     */
    public static function fromArray(array $row): self
    {
        $int = static fn(string $key): int => \is_numeric($row[$key] ?? null) ? (int) $row[$key] : throw new \UnexpectedValueException("A bench-http-client result lacks '{$key}'.");
        $float = static fn(string $key): float => \is_numeric($row[$key] ?? null) ? (float) $row[$key] : throw new \UnexpectedValueException("A bench-http-client result lacks '{$key}'.");
        $string = static fn(string $key): string => \is_string($row[$key] ?? null) ? $row[$key] : throw new \UnexpectedValueException("A bench-http-client result lacks '{$key}'.");

        return new self(
            $string('client'),
            $string('mode'),
            $int('round'),
            $int('concurrency'),
            $int('requests'),
            $int('all_requests'),
            $int('errors'),
            $float('seconds'),
            $float('rps'),
            $float('p50_us'),
            $float('p99_us'),
            $float('mean_us'),
            $float('client_cpu_s'),
            \is_numeric($row['server_cpu_s'] ?? null) ? (float) $row['server_cpu_s'] : null,
        );
    }

    /**
     * @return array<string, int|float|string|null>
     */
    public function toArray(): array
    {
        return [
            'client' => $this->client,
            'mode' => $this->mode,
            'round' => $this->round,
            'concurrency' => $this->concurrency,
            'requests' => $this->requests,
            'all_requests' => $this->allRequests,
            'errors' => $this->errors,
            'seconds' => $this->seconds,
            'rps' => $this->rps,
            'p50_us' => $this->p50Us,
            'p99_us' => $this->p99Us,
            'mean_us' => $this->meanUs,
            'client_cpu_s' => $this->clientCpuSeconds,
            'server_cpu_s' => $this->serverCpuSeconds,
        ];
    }

    /**
     * Client CPU per request, µs.
     */
    public function clientCpuUs(): float
    {
        return $this->requests > 0 ? $this->clientCpuSeconds / $this->requests * 1e6 : 0.0;
    }

    /**
     * nginx CPU per request (over all requests of the process, warm-up included), µs.
     */
    public function serverCpuUs(): ?float
    {
        return $this->serverCpuSeconds === null || $this->allRequests === 0 ? null : $this->serverCpuSeconds / $this->allRequests * 1e6;
    }
}
