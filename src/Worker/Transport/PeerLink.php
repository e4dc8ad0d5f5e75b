<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Io\Connection;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Worker\Codec\BatchLayout;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Slots;

/**
 * The one-way link from this process to a peer (another worker of the machine over a Unix socket,
 * or a worker of another node over TCP: the transport is the host's choice, see LinkHost::dial()):
 * messages queue and leave in frames, in order, so order per sender and receiver is kept and a
 * burst costs one write per frame.
 *
 * Bounds and what happens at them:
 *  - A frame holds at most MAX_BATCH messages and about MAX_FRAME_BYTES (estimated) of them; a
 *    burst leaves as several frames, and a single message larger than that travels alone (a
 *    message above Mesh::MAX_MESSAGE_BYTES was refused at tell()). A frame that still encodes
 *    above Frames::MAX_PAYLOAD is split again; a lone message that does becomes a dead letter
 *    (TooLarge).
 *  - HIGH_WATER_MARK bytes written but not taken by the kernel (the other worker reads more
 *    slowly than this one writes), or MAX_WAITING messages / MAX_WAITING_BYTES waiting for a
 *    worker that is not connected, make the link congested (isCongested()): senders then wait
 *    or their messages become dead letters (see Mesh::send()).
 *
 * A batch stays remembered (encoded: no work for the cycle collector) until the receiver
 * acknowledges it was put into mailboxes. When the link breaks, what was unacknowledged becomes
 * dead letters (WorkerLost: it may or may not have arrived); what had not left waits for the
 * worker to come back (a replacement takes over its socket) and becomes dead letters
 * (WorkerUnavailable) only after the pool's undeliveredTimeout. A Goodbye from the other worker
 * (it is being replaced) makes the link stop sending, wait for the last acknowledgements, close,
 * and open again to the slot's new worker.
 *
 * @internal
 */
final class PeerLink
{
    private const RETRY_FIRST = 0.01;
    private const RETRY_MAX = 0.25;
    /** Messages per frame at most. */
    public const MAX_BATCH = 1024;
    /** Estimated bytes of messages per frame at most (one larger message travels alone). */
    public const MAX_FRAME_BYTES = 1024 * 1024;
    /** Bytes written but not yet taken by the kernel above which the link is congested. */
    public const HIGH_WATER_MARK = 4 * 1024 * 1024;
    /** Messages waiting for a worker not connected (yet) above which the link is congested ... */
    public const MAX_WAITING = 65_536;
    /** ... or estimated bytes of them. */
    public const MAX_WAITING_BYTES = 128 * 1024 * 1024;
    /** Seconds the other worker gets to answer the handshake. */
    private const HANDSHAKE_TIMEOUT = 5.0;

    /** The authenticated connection batches go to. */
    private ?Connection $connection = null;
    /** A connection whose handshake is under way. */
    private ?Connection $opening = null;
    private string $nonce = '';
    private bool $connecting = false;
    /** close() was called: send what is queued, then end the connection once all is acknowledged. */
    private bool $closing = false;
    private bool $closed = false;
    /** Goodbye received: send nothing more on this connection; close it once all is acknowledged. */
    private bool $retiring = false;
    /** @var list<mixed> the frame being filled: class table placeholder, then messages as BatchLayout writes them */
    private array $segment = [[]];
    /**
     * The sender of the last message of the frame being filled (meaningless while it is empty:
     * the first message always writes its sender). Left as it was when a frame leaves, and each
     * written only when it changes: a typed property write costs ~100 instructions.
     */
    private int $segmentSenderWorker = \PHP_INT_MIN;
    private string $segmentSenderPath = '';
    private int $segmentCount = 0;
    private int $segmentBytes = 0;
    private int $segmentObjects = 0;
    /** @var list<array{list<mixed>, int, int, int}> frames filled but not sent: batch, objects (MessageClasses::check()), messages, bytes */
    private array $sealed = [];
    private int $sealedCount = 0;
    private int $sealedBytes = 0;
    private bool $flushScheduled = false;
    private int $sequence = 0;
    /**
     * Sent batches by sequence number, until acknowledged: wire format and bytes.
     *
     * @var array<int, array{int, string}>
     */
    private array $unacked = [];
    private float $waitingSince = \INF;
    /** Loop time of the last acknowledgement, or of the first batch sent since the last one. */
    private float $ackedAt = 0.0;
    private float $retryDelay = self::RETRY_FIRST;
    private ?int $retryTimer = null;
    private bool $congested = false;
    /**
     * Whether the link is congested (see isCongested()); kept up to date where what it depends on
     * changes (messages waiting are counted per frame filled), so a sender reads a property.
     */
    public bool $full = false;
    /** Bytes of the batches written to the other worker so far, frame headers included (for metrics, read at scrape time). */
    public int $bytesSent = 0;
    /** @var Deferred<null>|null settles when the link takes messages again */
    private ?Deferred $relieved = null;
    private Frames $frames;
    /** @var \Closure(): void */
    private readonly \Closure $flushCallback;
    private readonly Loop $loop;
    private readonly MessageCodec $codec;

    /**
     * @param string $role what this process is to the peer: "peer", or in a reload "predecessor"
     *                     (the peer replaces it) or "successor" (it replaces the peer)
     */
    public function __construct(
        private readonly LinkHost $host,
        private readonly int $worker,
        private readonly string $role = 'peer',
    ) {
        $this->loop = $host->loop();
        $this->codec = $host->codec();
        $this->frames = new Frames(Frames::HANDSHAKE_PAYLOAD);
        $this->flushCallback = function (): void {
            $this->flush();
        };
    }

    public function enqueue(string $path, mixed $message, int $senderWorker, string $senderPath, int $bytes, int $objects): void
    {
        // The sender once per run of messages from it (see BatchLayout).
        if ($this->segmentCount === 0 || $senderWorker !== $this->segmentSenderWorker || $senderPath !== $this->segmentSenderPath) {
            $this->segment[] = $senderWorker;
            $this->segment[] = $senderPath;
            if ($senderWorker !== $this->segmentSenderWorker) {
                $this->segmentSenderWorker = $senderWorker;
            }
            if ($senderPath !== $this->segmentSenderPath) {
                $this->segmentSenderPath = $senderPath;
            }
        }
        $this->segment[] = $path;
        $this->segment[] = $message;
        $this->segmentBytes += $bytes;
        if ($objects !== 0) {
            $this->segmentObjects |= $objects; // a typed property write costs ~100 instructions
        }
        if (++$this->segmentCount >= self::MAX_BATCH || $this->segmentBytes >= self::MAX_FRAME_BYTES) {
            if ($this->connection !== null && !$this->retiring && !$this->congested && \count($this->sealed) === 0) {
                $this->writeSegment($this->connection);
            } else {
                $this->seal();
            }
        }
        if (!$this->flushScheduled) {
            $this->flushScheduled = true;
            $this->loop->defer($this->flushCallback);
        }
    }

    /**
     * Whether a sender should wait before sending more (see whenRelieved()): the peer reads more
     * slowly than this worker writes, or messages pile up for a worker that is not there.
     */
    public function isCongested(): bool
    {
        return $this->full;
    }

    private function refreshFull(): void
    {
        $this->full = $this->congested
            || $this->sealedCount + $this->segmentCount >= self::MAX_WAITING
            || $this->sealedBytes + $this->segmentBytes >= self::MAX_WAITING_BYTES;
    }

    /**
     * @return Future<null> settles once the link is no longer congested (or is gone: then the
     *                      messages waiting for it end as dead letters in their own time)
     */
    public function whenRelieved(): Future
    {
        return ($this->relieved ??= new Deferred($this->loop))->future();
    }

    /**
     * Batches written to the other worker so far (for metrics): each got the next sequence number,
     * so that number is their count, with no counter of its own to write per frame.
     */
    public function framesSent(): int
    {
        return $this->sequence;
    }

    /**
     * Batches sent and not acknowledged yet.
     */
    public function unacknowledged(): int
    {
        return \count($this->unacked);
    }

    /**
     * Nothing queued, nothing unacknowledged.
     */
    public function isIdle(): bool
    {
        return $this->segmentCount === 0 && \count($this->sealed) === 0 && (\count($this->unacked) === 0 || $this->connection === null);
    }

    /**
     * Sends what is queued (connecting first if need be) and closes the link once it is
     * acknowledged; abort() ends what is left when the drain runs out of time.
     */
    public function close(): void
    {
        $this->closing = true;
        $this->flush();
        if ($this->connection !== null && \count($this->unacked) === 0 && \count($this->sealed) === 0) {
            $this->connection->end();
        }
    }

    /**
     * Closes at once (the drain ran out of time): what is unacknowledged becomes dead letters.
     */
    public function abort(): void
    {
        $this->closed = $this->closing = true;
        if ($this->retryTimer !== null) {
            $this->loop->cancel($this->retryTimer);
            $this->retryTimer = null;
        }
        $this->connection?->close();
        $this->opening?->close();
        $this->dropWaiting(DeadLetterReason::WorkerUnavailable);
    }

    /**
     * Gives the link up for good (its peer left the cluster): what was sent and not acknowledged,
     * and what waits, become dead letters with $reason; asks among them fail at once.
     */
    public function drop(DeadLetterReason $reason): void
    {
        $this->closed = $this->closing = true;
        if ($this->retryTimer !== null) {
            $this->loop->cancel($this->retryTimer);
            $this->retryTimer = null;
        }
        $connection = $this->connection;
        $opening = $this->opening;
        $this->connection = $this->opening = null;
        $connection?->close();
        $opening?->close();
        $unacked = $this->unacked;
        $this->unacked = [];
        foreach ($unacked as [$format, $encoded]) {
            try {
                $this->host->undeliverable($this->codec->decode($format, $encoded), $this->worker, $reason);
            } catch (FrameException) {
                continue;
            }
        }
        $this->dropWaiting($reason);
    }

    private function seal(): void
    {
        if ($this->segmentCount === 0) {
            return;
        }
        if ($this->segmentObjects !== 0) {
            $this->segment[0] = $this->codec->classTable();
        }
        $this->sealed[] = [$this->segment, $this->segmentObjects, $this->segmentCount, $this->segmentBytes];
        $this->sealedCount += $this->segmentCount;
        $this->sealedBytes += $this->segmentBytes;
        $this->segment = [[]];
        $this->segmentCount = $this->segmentBytes = 0;
        $this->segmentObjects = 0;
        $this->refreshFull();
    }

    private function flush(): void
    {
        $this->flushScheduled = false;
        $connection = $this->connection;
        if ($connection !== null && !$this->retiring && !$this->congested) {
            if (\count($this->sealed) !== 0) {
                $this->sendSealed(); // older frames first
            }
            if ($this->segmentCount !== 0 && !$this->congested && \count($this->sealed) === 0) {
                $this->writeSegment($connection); // the common case: one frame per turn, straight out
            }
            if ($this->segmentCount === 0) {
                return;
            }
        }
        $this->seal();
        if (\count($this->sealed) === 0 || $connection !== null) {
            return; // written, or waiting for the link to drain or to switch over
        }
        if ($this->waitingSince === \INF) {
            $this->waitingSince = $this->loop->now();
        }
        $this->connect();
    }

    /**
     * Writes the frame being filled at once (nothing older waits).
     */
    private function writeSegment(Connection $connection): void
    {
        $batch = $this->segment;
        $objects = $this->segmentObjects;
        $this->segment = [[]];
        $this->segmentCount = $this->segmentBytes = 0;
        if ($objects !== 0) {
            $this->segmentObjects = 0;
            $batch[0] = $this->codec->classTable(); // $batch is the only reference left: no copy
        }
        $this->loop->markActive();
        $this->write($connection, $batch, $objects);
        if ($this->congested) {
            $this->refreshFull();
        }
    }

    /**
     * Writes sealed frames while the connection takes them: beyond its high-water mark they wait
     * here (counted as waiting) until it drains, so no more than about HIGH_WATER_MARK plus one
     * frame is ever in the connection's buffer.
     */
    private function sendSealed(): void
    {
        $connection = $this->connection;
        \assert($connection !== null);
        $this->loop->markActive();
        // A write that finds the other worker gone closes the connection at once (lost()): the
        // frames left wait for the next one.
        while ($this->connection === $connection && !$this->congested && \count($this->sealed) !== 0) {
            [$batch, $objects, $count, $bytes] = array_shift($this->sealed);
            $this->sealedCount -= $count;
            $this->sealedBytes -= $bytes;
            $this->write($connection, $batch, $objects);
        }
        $this->refreshFull();
        $this->relieveIfRoom();
    }

    /**
     * @param list<mixed> $batch
     */
    private function write(Connection $connection, array $batch, int $objects): void
    {
        $format = 0;
        $encoded = $this->codec->encode($batch, $objects, $format);
        if (\strlen($encoded) + 9 > Frames::MAX_PAYLOAD) {
            $halves = BatchLayout::split($batch);
            if ($halves === null) {
                $this->host->undeliverable($batch, $this->worker, DeadLetterReason::TooLarge);

                return;
            }
            $this->write($connection, $halves[0], $objects);
            $this->write($connection, $halves[1], $objects);

            return;
        }
        $sequence = ++$this->sequence;
        if ($this->unacked === []) {
            $this->ackedAt = $this->loop->now();
        }
        $this->unacked[$sequence] = [$format, $encoded];
        $this->bytesSent += \strlen($encoded) + 13;
        if (!$connection->write(pack('NCJC', \strlen($encoded) + 9, FrameType::Batch->value, $sequence, $format) . $encoded) && $this->connection === $connection) {
            // Above the high-water mark: congested until the connection drains. A write that
            // found the other worker gone (kill -9) closed the connection instead, and lost()
            // has already dealt with it: a link with no connection is never congested (nothing
            // would ever relieve it, and every sender to that worker would wait in vain).
            $this->congested = true;
        }
    }

    private function connect(): void
    {
        if ($this->connecting || $this->opening !== null || $this->closed || $this->retryTimer !== null) {
            return;
        }
        $this->connecting = true;
        $this->host->dial($this->worker, self::HIGH_WATER_MARK)
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
                $this->open($connection);
            });
    }

    /**
     * Proves this process belongs to the pool or cluster (Handshake) on a new connection.
     */
    private function open(Connection $connection): void
    {
        $this->opening = $connection;
        $this->nonce = Handshake::nonce();
        $this->frames = new Frames(Frames::HANDSHAKE_PAYLOAD);
        $loop = $this->loop;
        $timer = $loop->delay(self::HANDSHAKE_TIMEOUT, static function () use ($connection): void {
            $connection->close();
        });
        $loop->unreference($timer);
        $connection->write(Frames::encode(FrameType::Hello, \sprintf(
            'nexus1 %s %d %s %s',
            $this->role,
            $this->host->localId(),
            $this->codec->name(),
            bin2hex($this->nonce),
        )));
        $connection->onData(function (string $bytes) use ($connection, $timer): void {
            try {
                foreach ($this->frames->push($bytes) as [$type, $payload]) {
                    if ($this->connection !== $connection) {
                        $this->challenged($connection, $type, $payload);
                        $this->loop->cancel($timer);
                    } elseif ($type === FrameType::Ack && \strlen($payload) === 8) {
                        $this->acknowledged(Frames::sequence($payload));
                    } elseif ($type === FrameType::Goodbye) {
                        $this->retire();
                    } else {
                        throw new FrameException("it sent a {$type->name} frame on a link that only carries acknowledgements");
                    }
                }
            } catch (FrameException $e) {
                $this->host->logger()->warning('Link to {worker} closed: {error}', ['worker' => Slots::describe($this->worker), 'error' => $e->getMessage()]);
                $connection->close();
            }
        });
        $connection->onDrain(function () use ($connection): void {
            if ($this->connection === $connection) {
                $this->relieve();
            }
        });
        $connection->onClose(function () use ($connection, $timer): void {
            $this->loop->cancel($timer);
            if ($this->connection === $connection) {
                $this->lost();
            } elseif ($this->opening === $connection) {
                $this->opening = null;
                $this->retryLater();
            }
            $this->host->linkClosed();
        });
    }

    /**
     * @throws FrameException
     */
    private function challenged(Connection $connection, FrameType $type, string $payload): void
    {
        $parts = explode(' ', $payload);
        $serverId = \count($parts) === 3 && preg_match('/^\d{1,18}$/', $parts[0]) === 1 ? (int) $parts[0] : -1;
        if ($type !== FrameType::Challenge || $serverId < 0 || !$this->host->accepts($this->worker, $serverId)) {
            throw new FrameException('it did not answer the Hello with the Challenge of the expected worker');
        }
        $serverNonce = @hex2bin($parts[1]);
        $proof = @hex2bin($parts[2]);
        if (!\is_string($serverNonce) || \strlen($serverNonce) !== Handshake::NONCE_BYTES || !\is_string($proof)) {
            throw new FrameException('its Challenge is malformed');
        }
        $client = $this->host->identity($this->role);
        $server = "worker:{$serverId}";
        if (!Handshake::matches($this->host->handshake()->serverProof($this->nonce, $serverNonce, $client, $server), $proof)) {
            throw new FrameException('it does not know the pool secret (its proof does not match)');
        }
        $connection->write(Frames::encode(FrameType::Proof, bin2hex($this->host->handshake()->clientProof($this->nonce, $serverNonce, $client, $server))));
        if ($connection->isClosed()) {
            return; // the other worker died after its Challenge: onClose() tries again
        }
        $this->opening = null;
        $this->connection = $connection;
        $this->retiring = false;
        $this->congested = false;
        $this->refreshFull();
        $this->retryDelay = self::RETRY_FIRST;
        $this->waitingSince = \INF;
        $this->flush();
    }

    /**
     * Closes a link whose peer has acknowledged nothing for $timeout seconds while batches wait
     * for it (a peer behind a network that dropped the connection silently, or stopped
     * forwarding): what was unconfirmed becomes dead letters (WorkerLost) and the link is opened
     * again. Returns whether it did.
     */
    public function expireUnacknowledged(float $timeout): bool
    {
        $connection = $this->connection;
        if ($connection === null || $this->unacked === [] || $this->loop->now() - $this->ackedAt < $timeout) {
            return false;
        }
        $this->host->logger()->warning('Link to {worker} closed: nothing acknowledged for {timeout} s.', ['worker' => Slots::describe($this->worker), 'timeout' => $timeout]);
        $connection->close();

        return true;
    }

    private function acknowledged(int $sequence): void
    {
        $this->ackedAt = $this->loop->now();
        foreach ($this->unacked as $sent => $_) {
            if ($sent > $sequence) {
                break;
            }
            unset($this->unacked[$sent]);
        }
        if (\count($this->unacked) === 0) {
            if ($this->retiring) {
                $this->switchOver();
            } elseif ($this->closing && \count($this->sealed) === 0) {
                $this->connection?->end();
            }
        }
    }

    /**
     * The other worker is leaving: stop sending here, and move on once all is acknowledged.
     */
    private function retire(): void
    {
        $this->retiring = true;
        if (\count($this->unacked) === 0) {
            $this->switchOver();
        }
    }

    private function switchOver(): void
    {
        $old = $this->connection;
        $this->connection = null;
        $this->retiring = false;
        $this->congested = false;
        $this->refreshFull();
        $old?->end();
        $this->seal();
        if ($this->closed) {
            $this->dropWaiting(DeadLetterReason::WorkerUnavailable);
        } elseif (\count($this->sealed) !== 0) {
            $this->waitingSince = $this->loop->now();
            $this->connect();
        }
        $this->relieveIfRoom();
    }

    private function relieve(): void
    {
        $this->congested = false;
        $this->refreshFull();
        if ($this->connection !== null && !$this->retiring && \count($this->sealed) !== 0) {
            $this->sendSealed();
        } else {
            $this->relieveIfRoom();
        }
    }

    private function relieveIfRoom(): void
    {
        if ($this->relieved !== null && ($this->closed || !$this->isCongested())) {
            $relieved = $this->relieved;
            $this->relieved = null;
            $relieved->resolve(null);
        }
    }

    private function lost(): void
    {
        $this->connection = null;
        $this->retiring = false;
        $this->congested = false;
        $this->refreshFull();
        $unacked = $this->unacked;
        $this->unacked = [];
        $count = 0;
        foreach ($unacked as [$format, $encoded]) {
            try {
                $batch = $this->codec->decode($format, $encoded);
            } catch (FrameException) {
                continue;
            }
            $count += BatchLayout::count($batch);
            $this->host->undeliverable($batch, $this->worker, DeadLetterReason::WorkerLost);
        }
        $this->relieveIfRoom();
        if ($this->closing && \count($this->sealed) === 0 && $this->segmentCount === 0) {
            $this->closed = true; // closed as asked, everything delivered or dead-lettered
        }
        if ($this->closed) {
            return;
        }
        $this->host->peerLost($this->worker);
        if ($count > 0) {
            // Between the workers of a machine this mostly happens as a pool stops; to another
            // node it means the network or that node failed.
            $remote = $this->worker >= 0 && Slots::node($this->worker) !== Slots::node($this->host->localId());
            $this->host->logger()->log($remote ? 'warning' : 'notice', 'Link to {worker} lost; {count} messages sent to it were not confirmed and went to dead letters (worker lost: delivery unknown).', [
                'worker' => Slots::describe($this->worker),
                'count' => $count,
            ]);
        }
        $this->seal();
        if (\count($this->sealed) !== 0) {
            $this->waitingSince = $this->loop->now();
            $this->connect();
        }
    }

    private function retryLater(): void
    {
        $loop = $this->loop;
        if ($this->closed) {
            $this->dropWaiting(DeadLetterReason::WorkerUnavailable);

            return;
        }
        if ($loop->now() - $this->waitingSince >= $this->host->undeliveredTimeout()) {
            $count = $this->sealedCount + $this->segmentCount;
            $this->host->logger()->warning('{worker} unreachable for {timeout} s: {count} messages for it went to dead letters (worker unavailable).', [
                'worker' => ucfirst(Slots::describe($this->worker)),
                'timeout' => $this->host->undeliveredTimeout(),
                'count' => $count,
            ]);
            $this->dropWaiting(DeadLetterReason::WorkerUnavailable);
            $this->waitingSince = \INF;
            $this->retryDelay = self::RETRY_FIRST;
            $this->host->peerLost($this->worker);

            return;
        }
        $this->retryTimer = $loop->delay($this->retryDelay, function (): void {
            $this->retryTimer = null;
            $this->seal();
            if (\count($this->sealed) !== 0) {
                $this->connect();
            }
        });
        $this->retryDelay = min(self::RETRY_MAX, $this->retryDelay * 2);
    }

    /**
     * Everything not sent yet becomes dead letters with $reason.
     */
    private function dropWaiting(DeadLetterReason $reason): void
    {
        $this->seal();
        $sealed = $this->sealed;
        $this->sealed = [];
        $this->sealedCount = $this->sealedBytes = 0;
        foreach ($sealed as [$batch]) {
            $this->host->undeliverable($batch, $this->worker, $reason);
        }
        $this->refreshFull();
        $this->relieveIfRoom();
    }
}
