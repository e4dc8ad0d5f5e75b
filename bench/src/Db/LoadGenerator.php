<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Bench\CpuTime;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Loop;

/**
 * An open-model HTTP load generator on the Nexus loop: requests start on a fixed schedule
 * (constant arrival rate) whether or not earlier ones have finished, each on an idle keep-alive
 * connection, or on a new one while fewer than $maxInFlight are open. A request that finds all
 * $maxInFlight connections busy is not sent: it counts as dropped. Latency runs from the
 * scheduled start, not from the send, so a server that falls behind is not flattered
 * (no coordinated omission).
 */
final class LoadGenerator
{
    private const TICK = 0.001;

    /** @var list<LoadConnection> */
    private array $idle = [];
    /** @var array<int, LoadConnection> */
    private array $all = [];
    private int $nextId = 0;
    private float $windowStart = 0.0;
    private float $windowEnd = 0.0;
    private int $scheduled = 0;
    private int $ok = 0;
    private int $okInWindow = 0;
    private int $errors = 0;
    private int $dropped = 0;
    private string $firstError = '';
    /** @var list<float> */
    private array $latencies = [];
    private string $request;

    public function __construct(
        private readonly Loop $loop,
        private readonly string $host,
        private readonly int $port,
        private readonly string $path = '/',
        private readonly int $maxInFlight = 256,
        private readonly float $drainTimeout = 5.0,
    ) {
        if ($maxInFlight < 1 || $maxInFlight > 1000) {
            throw new \InvalidArgumentException("maxInFlight must be between 1 and 1000 (stream_select watches at most 1024 descriptors), got {$maxInFlight}.");
        }
        $this->request = "GET {$path} HTTP/1.1\r\nHost: {$host}:{$port}\r\nUser-Agent: nexus-bench-db\r\nAccept: application/json\r\n\r\n";
    }

    /**
     * Sends requests at $rate per second: $warmup seconds unmeasured, then $duration seconds
     * measured; then waits up to the drain timeout for the measured requests still in flight.
     */
    public function run(float $rate, float $warmup, float $duration): LoadResult
    {
        if ($rate <= 0.0 || $duration <= 0.0 || $warmup < 0.0) {
            throw new \InvalidArgumentException("The rate and duration must be above zero and the warm-up not negative, got {$rate}/s, {$duration} s, {$warmup} s.");
        }
        $this->reset();
        $interval = 1.0 / $rate;
        $start = self::now() + 0.01;
        $this->windowStart = $start + $warmup;
        $this->windowEnd = $this->windowStart + $duration;
        $index = 0;
        $cpuBefore = CpuTime::total();
        $wallBefore = self::now();
        $drainDeadline = $this->windowEnd + $this->drainTimeout;
        $scheduling = true;
        $this->loop->repeat(self::TICK, function (int $timer) use (&$index, &$scheduling, $start, $interval, $drainDeadline): void {
            $now = self::now();
            if ($scheduling) {
                while (($due = $start + $index * $interval) <= $now) {
                    if ($due >= $this->windowEnd) {
                        $scheduling = false;

                        break;
                    }
                    ++$index;
                    $this->dispatch($due);
                }
            }
            if (!$scheduling && ($this->measuredInFlight() === 0 || $now >= $drainDeadline)) {
                $this->loop->cancel($timer);
                $this->loop->stop();
            }
        }, 0.0);
        $this->loop->run();
        $timeouts = $this->measuredInFlight();
        $wall = self::now() - $wallBefore;
        $cpu = CpuTime::total() - $cpuBefore;
        $connections = \count($this->all);
        $open = $this->all;
        // Forgotten first, so that closing them counts nothing more (the timeouts are counted).
        $this->all = [];
        $this->idle = [];
        foreach ($open as $connection) {
            $connection->busy = false;
            $connection->connection?->close();
        }
        [$p50, $p95, $p99, $max] = Percentiles::many($this->latencies, [50.0, 95.0, 99.0, 100.0]);

        return new LoadResult(
            $rate,
            $duration,
            $this->scheduled,
            $this->ok,
            $this->errors,
            $this->dropped,
            $timeouts,
            $this->okInWindow / $duration,
            $p50,
            $p95,
            $p99,
            $max,
            $cpu,
            $wall,
            $connections,
            $this->firstError,
        );
    }

    private function reset(): void
    {
        $this->scheduled = $this->ok = $this->okInWindow = $this->errors = $this->dropped = 0;
        $this->latencies = [];
        $this->firstError = '';
    }

    private function dispatch(float $due): void
    {
        $measured = $due >= $this->windowStart;
        if ($measured) {
            ++$this->scheduled;
        }
        $connection = array_pop($this->idle);
        if ($connection !== null) {
            $this->send($connection, $due, $measured);

            return;
        }
        if (\count($this->all) >= $this->maxInFlight) {
            if ($measured) {
                ++$this->dropped;
            }

            return;
        }
        $connection = new LoadConnection($this->nextId++);
        $connection->startedAt = $due;
        $connection->measured = $measured;
        $this->all[$connection->id] = $connection;
        Connector::connect($this->loop, "tcp://{$this->host}:{$this->port}", 5.0)->onSettle(
            function (?\Throwable $error, mixed $value) use ($connection): void {
                if ($error !== null || !$value instanceof Connection) {
                    $this->fail($connection, 'connect: ' . ($error?->getMessage() ?? 'no connection'));

                    return;
                }
                $connection->connection = $value;
                $value->onData(function (string $bytes) use ($connection): void {
                    $this->received($connection, $bytes);
                });
                $value->onClose(function (?\Throwable $reason) use ($connection): void {
                    if (isset($this->all[$connection->id])) {
                        $this->fail($connection, 'connection closed' . ($reason === null ? '' : ': ' . $reason->getMessage()));
                    }
                });
                $value->write($this->request);
            },
        );
    }

    private function send(LoadConnection $connection, float $due, bool $measured): void
    {
        $connection->startedAt = $due;
        $connection->measured = $measured;
        $connection->busy = true;
        $connection->connection?->write($this->request);
    }

    private function received(LoadConnection $connection, string $bytes): void
    {
        try {
            $responses = $connection->reader->feed($bytes);
        } catch (\UnexpectedValueException $e) {
            $this->fail($connection, $e->getMessage());

            return;
        }
        foreach ($responses as $response) {
            if (!$connection->busy) {
                $this->fail($connection, 'a response nobody asked for');

                return;
            }
            $now = self::now();
            $connection->busy = false;
            if ($connection->measured) {
                if ($response->status === 200) {
                    ++$this->ok;
                    $this->latencies[] = ($now - $connection->startedAt) * 1000.0;
                } else {
                    ++$this->errors;
                    $this->firstError = $this->firstError !== '' ? $this->firstError : "HTTP {$response->status}: " . substr($response->body, 0, 200);
                }
            }
            if ($response->status === 200 && $now >= $this->windowStart && $now <= $this->windowEnd) {
                ++$this->okInWindow;
            }
            if ($response->close) {
                unset($this->all[$connection->id]);
                $connection->connection?->close();

                return;
            }
            $this->idle[] = $connection;
        }
    }

    private function fail(LoadConnection $connection, string $reason): void
    {
        unset($this->all[$connection->id]);
        $this->idle = array_values(array_filter($this->idle, static fn(LoadConnection $c): bool => $c !== $connection));
        if ($connection->busy && $connection->measured) {
            ++$this->errors;
            $this->firstError = $this->firstError !== '' ? $this->firstError : $reason;
        }
        $connection->busy = false;
        $connection->connection?->close();
    }

    private function measuredInFlight(): int
    {
        $count = 0;
        foreach ($this->all as $connection) {
            if ($connection->busy && $connection->measured) {
                ++$count;
            }
        }

        return $count;
    }

    private static function now(): float
    {
        return hrtime(true) / 1e9;
    }

}
