<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Internal\Mesh;

/**
 * The one-way link from this worker to another: messages queue in an outbox and leave as one
 * frame per loop turn, so order per sender and receiver is kept and a burst costs one write.
 *
 * A batch stays remembered until the receiver acknowledges it was put into mailboxes. When the
 * link breaks, what was unacknowledged becomes dead letters (WorkerLost: it may or may not have
 * arrived); what is still in the outbox waits for the worker to come back (a replacement takes
 * over its socket) and becomes dead letters (WorkerUnavailable) only after $undeliveredTimeout.
 *
 * @internal
 */
final class PeerLink
{
    private const RETRY_FIRST = 0.01;
    private const RETRY_MAX = 0.25;
    /** Messages per frame at most: a burst leaves in frames of this size instead of one huge one. */
    private const MAX_BATCH = 1024;
    /** Bytes written but not yet taken by the kernel above which senders in a fiber wait. */
    private const HIGH_WATER_MARK = 4 * 1024 * 1024;
    /** Messages queued for a worker not connected (yet) above which senders in a fiber wait. */
    private const MAX_WAITING = 65_536;

    private ?Connection $connection = null;
    private bool $connecting = false;
    private bool $closed = false;
    /** @var list<mixed> flat (path, message, sender worker, sender path) */
    private array $outbox = [];
    private bool $flushScheduled = false;
    private int $sequence = 0;
    /**
     * Sent batches by sequence number, until acknowledged; kept encoded, as strings, so that
     * messages in flight are no work for PHP's cycle collector.
     *
     * @var array<int, string>
     */
    private array $unacked = [];
    private float $waitingSince = \INF;
    private float $retryDelay = self::RETRY_FIRST;
    private ?int $retryTimer = null;
    private bool $congested = false;
    /** @var Deferred<null>|null settles when the link takes messages again */
    private ?Deferred $relieved = null;
    private readonly Frames $frames;
    /** @var \Closure(): void */
    private readonly \Closure $flushCallback;

    public function __construct(
        private readonly Mesh $mesh,
        private readonly int $worker,
        private readonly MessageCodec $codec,
        private readonly float $undeliveredTimeout,
    ) {
        $this->frames = new Frames();
        $this->flushCallback = function (): void {
            $this->flush();
        };
    }

    public function enqueue(string $path, mixed $message, int $senderWorker, string $senderPath): void
    {
        $this->outbox[] = $path;
        $this->outbox[] = $message;
        $this->outbox[] = $senderWorker;
        $this->outbox[] = $senderPath;
        if (\count($this->outbox) >= self::MAX_BATCH * 4 && $this->connection !== null) {
            $this->flush();
        } elseif (!$this->flushScheduled) {
            $this->flushScheduled = true;
            $this->mesh->system->loop->defer($this->flushCallback);
        }
    }

    /**
     * Sends what is queued and closes the link; what cannot leave any more becomes dead letters.
     */
    /**
     * Whether a sender should wait before sending more (see whenRelieved()): the peer reads more
     * slowly than this worker writes, or messages pile up for a worker that is not there.
     */
    public function isCongested(): bool
    {
        return $this->congested || ($this->connection === null && \count($this->outbox) >= self::MAX_WAITING * 4);
    }

    /**
     * @return Future<null> settles once the link is no longer congested (or is gone: then the
     *                      messages waiting for it end as dead letters in their own time)
     */
    public function whenRelieved(): Future
    {
        return ($this->relieved ??= new Deferred($this->mesh->system->loop))->future();
    }

    public function close(): void
    {
        if ($this->connection !== null) {
            $this->flush();
        } elseif ($this->outbox !== []) {
            $this->mesh->undeliverable($this->outbox, $this->worker, DeadLetterReason::WorkerUnavailable);
            $this->outbox = [];
        }
        $this->closed = true;
        $this->relieve();
        if ($this->retryTimer !== null) {
            $this->mesh->system->loop->cancel($this->retryTimer);
            $this->retryTimer = null;
        }
        $this->connection?->end();
    }

    private function flush(): void
    {
        $this->flushScheduled = false;
        if ($this->outbox === []) {
            return;
        }
        $connection = $this->connection;
        if ($connection === null) {
            if ($this->waitingSince === \INF) {
                $this->waitingSince = $this->mesh->system->loop->now();
            }
            $this->connect();

            return;
        }
        $this->mesh->system->loop->markActive();
        $encoded = $this->codec->encode($this->outbox);
        $this->outbox = [];
        $sequence = ++$this->sequence;
        $this->unacked[$sequence] = $encoded;
        if (!$connection->write(pack('NCJ', \strlen($encoded) + 8, FrameType::Batch->value, $sequence) . $encoded)) {
            $this->congested = true;
        } elseif ($this->relieved !== null) {
            $this->relieve();
        }
    }

    private function connect(): void
    {
        if ($this->connecting || $this->closed || $this->retryTimer !== null) {
            return;
        }
        $this->connecting = true;
        $loop = $this->mesh->system->loop;
        Connector::connect($loop, $this->mesh->socketAddress($this->worker), 1.0, self::HIGH_WATER_MARK)
            ->onSettle(function (?\Throwable $error, mixed $connection): void {
                $this->connecting = false;
                if ($error !== null || !$connection instanceof Connection) {
                    $this->retryLater();

                    return;
                }
                if ($this->closed) {
                    $connection->close();

                    return;
                }
                $this->connected($connection);
            });
    }

    private function connected(Connection $connection): void
    {
        $this->connection = $connection;
        $this->retryDelay = self::RETRY_FIRST;
        $this->waitingSince = \INF;
        $connection->write(Frames::encode(FrameType::Hello, $this->mesh->hello()));
        $connection->onData(function (string $bytes) use ($connection): void {
            try {
                foreach ($this->frames->push($bytes) as [$type, $payload]) {
                    if ($type !== FrameType::Ack || \strlen($payload) !== 8) {
                        throw new FrameException("Worker {$this->worker} sent a {$type->name} frame on a link that only carries acknowledgements.");
                    }
                    $this->acknowledged(Frames::sequence($payload));
                }
            } catch (FrameException $e) {
                $this->mesh->system->logger->warning('Link to worker {worker} closed: {error}', ['worker' => $this->worker, 'error' => $e->getMessage()]);
                $connection->close();
            }
        });
        $connection->onDrain(function (): void {
            $this->relieve();
        });
        $connection->onClose(function () use ($connection): void {
            if ($this->connection === $connection) {
                $this->lost();
            }
        });
        $this->flush();
    }

    private function acknowledged(int $sequence): void
    {
        foreach ($this->unacked as $sent => $_) {
            if ($sent > $sequence) {
                break;
            }
            unset($this->unacked[$sent]);
        }
    }

    private function relieve(): void
    {
        $this->congested = false;
        $relieved = $this->relieved;
        $this->relieved = null;
        $relieved?->resolve(null);
    }

    private function lost(): void
    {
        $this->connection = null;
        $this->relieve();
        $unacked = $this->unacked;
        $this->unacked = [];
        $count = 0;
        foreach ($unacked as $encoded) {
            $batch = $this->codec->decode($encoded);
            $count += intdiv(\count($batch), 4);
            $this->mesh->undeliverable($batch, $this->worker, DeadLetterReason::WorkerLost);
        }
        if ($this->closed) {
            return;
        }
        $this->mesh->workerLost($this->worker);
        $this->mesh->system->logger->notice('Link to worker {worker} lost; {count} messages sent to it were not confirmed and went to dead letters.', [
            'worker' => $this->worker,
            'count' => $count,
        ]);
        if ($this->outbox !== []) {
            $this->waitingSince = $this->mesh->system->loop->now();
            $this->connect();
        }
    }

    private function retryLater(): void
    {
        $loop = $this->mesh->system->loop;
        if ($loop->now() - $this->waitingSince >= $this->undeliveredTimeout) {
            $batch = $this->outbox;
            $this->outbox = [];
            $this->waitingSince = \INF;
            $this->retryDelay = self::RETRY_FIRST;
            $this->mesh->system->logger->warning('Worker {worker} unreachable for {timeout} s: {count} messages for it went to dead letters.', [
                'worker' => $this->worker,
                'timeout' => $this->undeliveredTimeout,
                'count' => intdiv(\count($batch), 4),
            ]);
            $this->mesh->undeliverable($batch, $this->worker, DeadLetterReason::WorkerUnavailable);
            $this->mesh->workerLost($this->worker);
            $this->relieve();

            return;
        }
        $this->retryTimer = $loop->delay($this->retryDelay, function (): void {
            $this->retryTimer = null;
            if ($this->outbox !== []) {
                $this->connect();
            }
        });
        $this->retryDelay = min(self::RETRY_MAX, $this->retryDelay * 2);
    }
}
