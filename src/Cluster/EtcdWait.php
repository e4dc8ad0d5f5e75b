<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Cluster\Exception\EtcdUnavailableException;
use Nexus\Cluster\Exception\EtcdWaitExpiredException;
use Nexus\Cluster\Exception\JoinInterruptedException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * A starting node's wait for etcd: it runs a try (the etcd side of the join) until one does not
 * fail with EtcdUnavailableException, pausing RETRY_FIRST seconds after the first failure,
 * doubling up to RETRY_MAX. It logs a warning when it starts to wait and one every
 * WAIT_LOG_EVERY seconds while it waits (the endpoint, the last error), and lastError() says why
 * it waits (for /readyz).
 *
 * Bounds: $limit seconds in all (0: no limit), then EtcdWaitExpiredException; SIGTERM or SIGINT
 * ends the wait at once, within a try or a pause (JoinInterruptedException; a try in flight is
 * abandoned). Any other failure of a try ends the wait with that failure. The loop runs while it
 * waits (an admin listener answers).
 */
final class EtcdWait
{
    private const RETRY_FIRST = 0.2;
    private const RETRY_MAX = 5.0;
    private const WAIT_LOG_EVERY = 10.0;

    private ?string $lastError = null;
    private ?string $signal = null;

    public function __construct(
        private readonly Loop $loop,
        private readonly string $node,
        private readonly string $endpoint,
        private readonly float $limit,
        private readonly LoggerInterface $logger,
    ) {}

    /**
     * The last error while it waits (null once a try succeeded, or before the first failed).
     */
    public function lastError(): ?string
    {
        return $this->lastError;
    }

    /**
     * Runs $try until it succeeds; awaits.
     *
     * @param \Closure(): Future<mixed> $try
     *
     * @throws EtcdWaitExpiredException
     * @throws JoinInterruptedException
     */
    public function run(\Closure $try): void
    {
        /** @var Deferred<null>|null $wake */
        $wake = null;
        $watchers = [];
        foreach ([\SIGTERM => 'SIGTERM', \SIGINT => 'SIGINT'] as $signo => $name) {
            $watchers[] = $this->loop->onSignal($signo, function () use ($name, &$wake): void {
                $this->signal = $name;
                $wake?->tryResolve(null);
            });
        }
        $started = $this->loop->now();
        $delay = self::RETRY_FIRST;
        $loggedAt = null;
        try {
            while (true) {
                $attempt = $try();
                $wake = new Deferred($this->loop);
                $attempt->onSettle(static function () use ($wake): void {
                    $wake->tryResolve(null);
                });
                $signal = $this->awaitUnlessSignalled($wake);
                if ($signal !== null) {
                    $attempt->ignore();

                    throw $this->interrupted($signal, $started);
                }
                try {
                    $attempt->await();
                    break;
                } catch (EtcdUnavailableException $e) {
                    $this->lastError = $e->getMessage();
                }
                $waited = $this->loop->now() - $started;
                if ($this->limit > 0.0 && $waited >= $this->limit) {
                    throw new EtcdWaitExpiredException(\sprintf(
                        'etcd at %s did not answer within --cluster-wait=%s s (last error: %s): start etcd, check --cluster, or give a longer --cluster-wait (0 waits forever).',
                        $this->endpoint,
                        $this->limit,
                        $this->lastError,
                    ));
                }
                if ($loggedAt === null) {
                    $this->logger->warning('Node {node} cannot reach etcd at {endpoint} ({error}); waiting for it before it joins (retrying every {first} s up to {max} s{limit}); it serves nothing meanwhile and /readyz says not ready.', [
                        'node' => $this->node,
                        'endpoint' => $this->endpoint,
                        'error' => $this->lastError,
                        'first' => self::RETRY_FIRST,
                        'max' => self::RETRY_MAX,
                        'limit' => $this->limit > 0.0 ? ", for at most {$this->limit} s" : '',
                    ]);
                    $loggedAt = $this->loop->now();
                } elseif ($this->loop->now() - $loggedAt >= self::WAIT_LOG_EVERY) {
                    $this->logger->warning('Node {node} still waits for etcd at {endpoint} after {waited} s: {error}', [
                        'node' => $this->node,
                        'endpoint' => $this->endpoint,
                        'waited' => (int) round($waited),
                        'error' => $this->lastError,
                    ]);
                    $loggedAt = $this->loop->now();
                }
                $pause = $this->limit > 0.0 ? max(0.0, min($delay, $this->limit - $waited)) : $delay;
                $wake = new Deferred($this->loop);
                $timer = $this->loop->delay($pause, static function () use ($wake): void {
                    $wake->tryResolve(null);
                });
                $signal = $this->awaitUnlessSignalled($wake);
                $this->loop->cancel($timer);
                if ($signal !== null) {
                    throw $this->interrupted($signal, $started);
                }
                $delay = min($delay * 2, self::RETRY_MAX);
            }
        } finally {
            foreach ($watchers as $watcher) {
                $this->loop->cancel($watcher);
            }
        }
        if ($loggedAt !== null) {
            $this->logger->info('etcd at {endpoint} answered after {waited} s.', ['endpoint' => $this->endpoint, 'waited' => round($this->loop->now() - $started, 1)]);
        }
        $this->lastError = null;
    }

    /**
     * Runs the loop until $wake settles (a try ended, a pause passed, or a signal came).
     *
     * @param Deferred<mixed> $wake
     *
     * @return string|null the signal that came meanwhile (SIGTERM, SIGINT), if one did
     */
    private function awaitUnlessSignalled(Deferred $wake): ?string
    {
        $wake->future()->await();

        return $this->signal;
    }

    private function interrupted(string $signal, float $started): JoinInterruptedException
    {
        return new JoinInterruptedException($signal, \sprintf(
            '%s while waiting for etcd at %s (%.1f s, last error: %s): the node never joined and served nothing; stopped.',
            $signal,
            $this->endpoint,
            $this->loop->now() - $started,
            $this->lastError ?? 'none yet',
        ));
    }
}
