<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\ClientResponse;
use Nexus\HttpClient\HttpClient;
use Nexus\Runtime\Loop;

/**
 * Load on the cluster tests' counters, from the test process on its own loop: increments of many
 * counters through the nodes in turn, one request per counter at a time (so a counter's answers
 * come in order), and what each answer says:
 *
 *  - acknowledged: 200 with the value after the increment (stored);
 *  - ambiguous: any other answer or none (it may or may not have been stored).
 *
 * So after the load a counter's value v must hold acked <= v <= acked + ambiguous, and no value
 * is acknowledged twice (an increment applied twice would show as one).
 */
final class CounterLoad
{
    /** @var array<string, int> */
    public array $acked = [];
    /** @var array<string, int> */
    public array $ambiguous = [];
    /** @var array<string, list<int>> values acknowledged, in order */
    public array $values = [];
    /** @var list<string> what the last ambiguous answers said (at most 20), for failure messages */
    public array $failures = [];
    /** @var array<string, int> ambiguous answers by kind (the exception class the server named, or the client's) */
    public array $failureKinds = [];
    /** @var array<string, float> when each counter was last acknowledged (loop time) */
    public array $lastAck = [];
    /** @var array<string, true> counters with a request in flight */
    private array $busy = [];
    private bool $running = false;
    private int $next = 0;
    private readonly HttpClient $http;

    /**
     * @param list<string> $names
     * @param list<string> $bases the nodes' URLs to send to, in turn
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly array $names,
        public array $bases,
        private readonly int $inFlight = 8,
    ) {
        $this->http = new HttpClient($loop, new ClientOptions(connectTimeout: 2.0, headTimeout: 8.0, totalTimeout: 8.0, idleTimeout: 8.0));
        foreach ($names as $name) {
            $this->acked[$name] = $this->ambiguous[$name] = 0;
            $this->values[$name] = [];
        }
    }

    public function start(): void
    {
        $this->running = true;
        for ($i = 0; $i < $this->inFlight; ++$i) {
            $this->send();
        }
    }

    public function stop(): void
    {
        $this->running = false;
    }

    public function isIdle(): bool
    {
        return $this->busy === [];
    }

    public function close(): void
    {
        $this->http->close();
    }

    /**
     * Reads every counter through the first node; null where it did not answer.
     *
     * @return array<string, int|null>
     */
    public function totals(): array
    {
        $futures = [];
        foreach ($this->names as $i => $name) {
            $futures[$name] = $this->http->get($this->bases[$i % \count($this->bases)] . "/c/{$name}");
        }
        $totals = [];
        foreach ($futures as $name => $future) {
            try {
                $response = $future->await();
                $data = json_decode($response->body(), true);
                $totals[$name] = $response->status() === 200 && \is_array($data) && \is_int($data['value'] ?? null) ? $data['value'] : null;
            } catch (\Throwable) {
                $totals[$name] = null;
            }
        }

        return $totals;
    }

    private function send(): void
    {
        if (!$this->running || $this->bases === []) {
            return;
        }
        $name = null;
        for ($tries = 0; $tries < \count($this->names); ++$tries) {
            $candidate = $this->names[$this->next++ % \count($this->names)];
            if (!isset($this->busy[$candidate])) {
                $name = $candidate;

                break;
            }
        }
        if ($name === null) {
            return;
        }
        $base = $this->bases[$this->next % \count($this->bases)];
        $this->busy[$name] = true;
        $this->http->post("{$base}/c/{$name}/inc", '')->onSettle(function (?\Throwable $error, mixed $response) use ($name): void {
            unset($this->busy[$name]);
            $value = null;
            if ($error === null && $response instanceof ClientResponse && $response->status() === 200) {
                $data = json_decode($response->body(), true);
                $value = \is_array($data) && \is_int($data['value'] ?? null) ? $data['value'] : null;
            }
            if ($value !== null) {
                ++$this->acked[$name];
                $this->values[$name][] = $value;
                $this->lastAck[$name] = $this->loop->now();
            } else {
                ++$this->ambiguous[$name];
                $body = $response instanceof ClientResponse ? json_decode($response->body(), true) : null;
                $kind = $error !== null ? $error::class : (\is_array($body) && \is_string($body['error'] ?? null) ? $body['error'] : 'status ' . ($response instanceof ClientResponse ? $response->status() : 0));
                $this->failureKinds[$kind] = ($this->failureKinds[$kind] ?? 0) + 1;
                if (\count($this->failures) < 20) {
                    $this->failures[] = \sprintf('%.3f %s: %s', $this->loop->now(), $name, $error !== null ? $error::class . ': ' . $error->getMessage() : ($response instanceof ClientResponse ? $response->status() . ' ' . $response->body() : 'no response'));
                }
            }
            $this->loop->defer($this->send(...));
        });
    }
}
