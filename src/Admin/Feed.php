<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Metrics\Snapshot;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;

/**
 * The live feed behind the dashboard and `nexus top`: once per $interval (1 s) while at least
 * one client listens, it reads the SystemView and the metrics, and builds one JSON frame that
 * every client gets (a client with a path filter gets the actor part built for it).
 *
 * Frame: {v, t, name, headline: {workers, workersUp, actors, deadLetters, requests, rps, p99},
 * workers, actors: {nodes, total}, deadLetters (the last 50), http: [points], pools, cluster}.
 *
 * Bounds: MAX_CLIENTS listeners at once (the next one is refused, 503), at most MAX_ACTORS actor
 * nodes and MAX_DEAD_LETTERS dead letters per frame, 120 latency points. A client that reads
 * slowly holds up only itself, and skips frames rather than queueing them. With no listener the
 * timer stops and nothing is read at all.
 *
 * @phpstan-import-type Families from Snapshot
 */
final class Feed
{
    public const MAX_CLIENTS = 16;
    public const MAX_ACTORS = 2000;
    public const MAX_DEAD_LETTERS = 50;

    private int $clients = 0;
    private ?int $timer = null;
    /** @var Deferred<bool>|null settles true at the next frame, false when the feed stops */
    private ?Deferred $next = null;
    private ?string $latest = null;
    private bool $stopped = false;
    private readonly HttpLatency $latency;

    /**
     * @param \Closure(): array{families: Families} $metrics
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly SystemView $view,
        private readonly \Closure $metrics,
        private readonly string $name = 'nexus',
        private readonly float $interval = 1.0,
    ) {
        if (!($interval > 0.0)) {
            throw new \InvalidArgumentException("The feed interval must be above zero seconds, got {$interval}.");
        }
        $this->latency = new HttpLatency();
    }

    /**
     * Takes a listener slot; false when MAX_CLIENTS already listen or the feed has stopped.
     * Every successful join() needs a leave().
     */
    public function join(): bool
    {
        if ($this->stopped || $this->clients >= self::MAX_CLIENTS) {
            return false;
        }
        if (++$this->clients === 1) {
            $this->sample();
            $this->timer = $this->loop->repeat($this->interval, function (): void {
                $this->tick();
            });
            $this->loop->unreference($this->timer);
        }

        return true;
    }

    public function leave(): void
    {
        if ($this->clients > 0 && --$this->clients === 0 && $this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
    }

    public function clients(): int
    {
        return $this->clients;
    }

    /**
     * Waits (in the caller's fiber) for the next frame; false once the feed has stopped.
     */
    public function wait(): bool
    {
        if ($this->stopped) {
            return false;
        }
        $this->next ??= new Deferred($this->loop);

        return $this->next->future()->await();
    }

    /**
     * The current frame as JSON: the shared one, or one with only the actors whose path
     * contains $filter.
     */
    public function json(string $filter = ''): string
    {
        if ($this->timer === null) {
            // Nobody listens, so nothing sampled lately: take the HTTP totals now.
            $this->sample();
            $this->latest = null;
        }
        if ($filter === '') {
            return $this->latest ??= self::encode($this->frame(''));
        }

        return self::encode($this->frame($filter));
    }

    /**
     * Builds a frame now.
     *
     * @return array<string, mixed>
     */
    public function frame(string $filter = ''): array
    {
        $workers = $this->view->workers();
        $actors = $this->view->actors($filter, self::MAX_ACTORS);
        $deadLetters = $this->view->deadLetters(self::MAX_DEAD_LETTERS);
        $points = $this->latency->points();
        $last = $points === [] ? null : $points[\count($points) - 1];
        $up = 0;
        foreach ($workers as $worker) {
            $up += $worker['up'] ? 1 : 0;
        }
        $total = $filter === '' ? $actors['total'] : $this->view->actors('', 0)['total'];

        return [
            'v' => 1,
            't' => round(microtime(true), 3),
            'name' => $this->name,
            'headline' => [
                'workers' => \count($workers),
                'workersUp' => $up,
                'actors' => $total,
                'deadLetters' => $deadLetters === [] ? 0 : $deadLetters[\count($deadLetters) - 1]['seq'],
                'requests' => $this->latency->total(),
                'rps' => $last['rps'] ?? null,
                'p99' => $last['p99'] ?? null,
            ],
            'workers' => $workers,
            'actors' => $actors,
            'deadLetters' => $deadLetters,
            'http' => $points,
            'pools' => $this->view->pools(),
            'cluster' => $this->view->cluster(),
        ];
    }

    /**
     * Wakes every waiting client with false and stops the timer.
     */
    public function stop(): void
    {
        $this->stopped = true;
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
        $next = $this->next;
        $this->next = null;
        $next?->resolve(false);
    }

    private function tick(): void
    {
        $this->sample();
        $this->latest = null;
        $next = $this->next;
        $this->next = null;
        $next?->resolve(true);
    }

    private function sample(): void
    {
        try {
            $families = ($this->metrics)()['families'];
            $this->latency->sample($this->loop->now(), $families[HttpLatency::FAMILY] ?? null);
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
        }
    }

    /**
     * @param array<string, mixed> $frame
     */
    private static function encode(array $frame): string
    {
        return json_encode($frame, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_PRESERVE_ZERO_FRACTION);
    }
}
