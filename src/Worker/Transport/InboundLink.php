<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Io\Connection;
use Nexus\Io\ConnectionHandler;
use Nexus\Runtime\Loop;
use Nexus\Worker\Exception\FrameException;
use Psr\Log\LoggerInterface;

/**
 * A link a peer opened to this process (over whichever transport). It must first prove it belongs
 * to the pool or cluster (Handshake: Hello, Challenge, Proof) as a peer the host admits
 * (LinkHost::admit()). Until then it may send frames of a handshake's size only, and it is closed
 * if it has not finished within HANDSHAKE_TIMEOUT.
 *
 * Then its batches are delivered into mailboxes, in order, and acknowledged (every 32 batches or
 * 5 ms, whichever comes first; at once when this worker is leaving). A batch is acknowledged only
 * once every message of it was delivered or became a dead letter. When a message must wait (its
 * mailbox is full, see Mesh::deliverBatch()) the link stops reading, so the sender's link fills
 * up and its senders slow down, and tries again every RETRY_DELAY; after the pool's
 * undeliveredTimeout of waiting, what still cannot go in becomes a dead letter (MailboxFull).
 *
 * It owns its connection as a ConnectionHandler rather than through onData() and onClose()
 * closures: Connection::streamReady() then hands each read over without the loop over its data
 * callbacks, at which PHP 8.2's tracing JIT leaves its trace for the interpreter (a few thousand
 * instructions per frame received, one frame per side of an ask).
 *
 * @internal
 */
final class InboundLink implements ConnectionHandler
{
    /** Acknowledge after this many batches at the latest ... */
    private const ACK_EVERY = 32;
    /** ... or after this many seconds: an acknowledgement per batch would wake the sender for nothing. */
    private const ACK_DELAY = 0.005;
    /** Seconds a connecting process gets to prove it belongs to the pool. */
    private const HANDSHAKE_TIMEOUT = 5.0;
    /** Seconds between tries to deliver a message that had to wait. */
    private const RETRY_DELAY = 0.002;
    /** An Ack frame up to its 8-byte sequence number: the payload length (8) and the type. */
    private const ACK_HEADER = "\x00\x00\x00\x08\x03";

    private readonly Frames $frames;
    private ?int $peer = null;
    private string $role = '';
    private int $selfAlias = -1;
    private string $clientIdentity = '';
    private string $clientNonce = '';
    private string $serverNonce = '';
    /** The sequence number of the last batch delivered, as sent (8 bytes, big-endian): what an Ack carries. */
    private string $lastSequence = '';
    private int $unacknowledged = 0;
    private ?int $ackTimer = null;
    private ?int $handshakeTimer;
    /** @var list<mixed>|null the batch being delivered when a message had to wait */
    private ?array $pending = null;
    private int $position = 0;
    private string $pendingSequence = '';
    private float $waitingSince = 0.0;
    private ?int $retryTimer = null;
    private bool $leaving = false;

    private readonly Loop $loop;

    public function __construct(
        private readonly Connection $connection,
        private readonly LinkHost $host,
        private readonly LoggerInterface $logger,
    ) {
        $this->frames = new Frames(Frames::HANDSHAKE_PAYLOAD);
        $loop = $this->loop = $host->loop();
        $this->handshakeTimer = $loop->delay(self::HANDSHAKE_TIMEOUT, function (): void {
            $this->handshakeTimer = null;
            if ($this->peer === null) {
                $this->refuse('it did not complete the handshake within ' . self::HANDSHAKE_TIMEOUT . ' s');
            }
        });
        $loop->unreference($this->handshakeTimer);
        $connection->attach($this);
    }

    /**
     * @internal the connection: bytes arrived
     */
    public function dataReceived(string $data): void
    {
        $this->loop->markActive();
        try {
            $this->frames->append($data);
            $this->process();
        } catch (FrameException $e) {
            $this->refuse($e->getMessage());
        }
    }

    /**
     * @internal the connection: the peer will send nothing more; this side ends too (what a
     *           connection with no end callback does by itself)
     */
    public function endReceived(): void
    {
        $this->connection->end();
    }

    /**
     * @internal the connection: nothing is written here but acknowledgements, which never wait
     */
    public function drained(): void {}

    /**
     * @internal the connection is closed
     */
    public function closed(?\Throwable $reason): void
    {
        $this->cancelTimers();
    }

    /**
     * Tells the other worker that this one is leaving: it should send what comes next elsewhere
     * (to this slot's new worker, through the slot's socket name) once what it sent here is
     * acknowledged, and then close this link.
     */
    public function goodbye(): void
    {
        if ($this->leaving || $this->peer === null || !$this->connection->isWritable()) {
            return;
        }
        $this->leaving = true;
        $this->acknowledge();
        $this->connection->write(Frames::encode(FrameType::Goodbye, ''));
    }

    public function role(): string
    {
        return $this->role;
    }

    /**
     * The peer's number once it has proved itself, else null.
     */
    public function peer(): ?int
    {
        return $this->peer;
    }

    public function close(): void
    {
        $this->acknowledge();
        $this->cancelTimers();
        $this->connection->close();
    }

    /**
     * Handles the frames read, in order, until one must wait.
     *
     * @throws FrameException
     */
    private function process(): void
    {
        $frames = $this->frames;
        while ($this->peer === null) {
            $frame = $frames->next();
            if ($frame === null) {
                return;
            }
            $this->handshake($frame[0], $frame[1]);
        }
        // The first frame outside the loop: a read mostly brings one, and PHP 8.2's tracing JIT
        // gives up a loop that runs once ("exit from loop"), leaving it to the interpreter.
        $peer = $this->peer;
        if ($this->pending === null && ($encoded = $frames->nextBatch()) !== null) {
            if (!$this->deliver($peer, $encoded)) {
                return; // waiting (see wait())
            }
            while (($encoded = $frames->nextBatch()) !== null) { // none waits: deliver() said so
                if (!$this->deliver($peer, $encoded)) {
                    return;
                }
            }
        }
        $this->scheduleAck();
    }

    /**
     * Delivers the batch nextBatch() returned last; false when a message of it must wait (then
     * wait() has taken over).
     *
     * @throws FrameException
     */
    private function deliver(int $peer, string $encoded): bool
    {
        $frames = $this->frames;
        $host = $this->host;
        $host->received($peer, \strlen($encoded) + 13);
        $batch = $host->codec()->decode($frames->format, $encoded);
        $reached = $host->deliverBatch($batch, 1, $this->selfAlias);
        if ($reached < \count($batch)) {
            $this->wait($batch, $reached, $frames->sequence);

            return false;
        }
        $this->lastSequence = $frames->sequence;
        ++$this->unacknowledged;

        return true;
    }

    /**
     * @param list<mixed> $batch
     */
    private function wait(array $batch, int $position, string $sequence): void
    {
        $this->pending = $batch;
        $this->position = $position;
        $this->pendingSequence = $sequence;
        $this->waitingSince = $this->loop->now();
        $this->connection->pause();
        $this->scheduleAck();
        $this->retryTimer = $this->loop->delay(self::RETRY_DELAY, $this->retry(...));
    }

    private function retry(): void
    {
        $this->retryTimer = null;
        $batch = $this->pending;
        if ($batch === null || $this->connection->isClosed()) {
            return;
        }
        $force = $this->loop->now() - $this->waitingSince >= $this->host->undeliveredTimeout();
        $reached = $this->host->deliverBatch($batch, $this->position, $this->selfAlias, $force);
        if ($reached < \count($batch)) {
            if ($reached !== $this->position) {
                $this->waitingSince = $this->loop->now(); // it moves: wait afresh for the next one
            }
            $this->position = $reached;
            $this->retryTimer = $this->loop->delay(self::RETRY_DELAY, $this->retry(...));

            return;
        }
        $this->pending = null;
        $this->lastSequence = $this->pendingSequence;
        ++$this->unacknowledged;
        try {
            $this->process();
        } catch (FrameException $e) {
            $this->refuse($e->getMessage());

            return;
        }
        if ($this->pending === null) {
            $this->connection->resume();
        }
    }

    private function scheduleAck(): void
    {
        if ($this->unacknowledged >= self::ACK_EVERY || ($this->leaving && $this->unacknowledged > 0)) {
            $this->acknowledge();
        } elseif ($this->unacknowledged > 0 && $this->ackTimer === null) {
            $loop = $this->loop;
            $this->ackTimer = $loop->delay(self::ACK_DELAY, function (): void {
                $this->ackTimer = null;
                $this->acknowledge();
            });
            $loop->unreference($this->ackTimer);
        }
    }

    private function acknowledge(): void
    {
        if ($this->ackTimer !== null) {
            $this->loop->cancel($this->ackTimer);
            $this->ackTimer = null;
        }
        if ($this->unacknowledged > 0 && $this->connection->isWritable()) {
            $this->unacknowledged = 0;
            $this->connection->write(self::ACK_HEADER . $this->lastSequence);
        }
    }

    /**
     * @throws FrameException
     */
    private function handshake(FrameType $type, string $payload): void
    {
        if ($this->clientNonce === '') {
            $this->hello($type, $payload);

            return;
        }
        $proof = $type === FrameType::Proof ? @hex2bin($payload) : false;
        $expected = $this->host->handshake()->clientProof($this->clientNonce, $this->serverNonce, $this->clientIdentity, $this->host->identity());
        if (!\is_string($proof) || !Handshake::matches($expected, $proof)) {
            throw new FrameException('it does not know the pool secret (its proof does not match)');
        }
        [$role, $id] = explode(':', $this->clientIdentity);
        $this->peer = (int) $id;
        $this->role = $role;
        $this->frames->limit(Frames::MAX_PAYLOAD);
        if ($this->handshakeTimer !== null) {
            $this->loop->cancel($this->handshakeTimer);
            $this->handshakeTimer = null;
        }
    }

    /**
     * @throws FrameException
     */
    private function hello(FrameType $type, string $payload): void
    {
        $parts = explode(' ', $payload);
        if ($type !== FrameType::Hello || \count($parts) !== 5 || $parts[0] !== 'nexus1' || !ctype_digit($parts[2]) || \strlen($parts[2]) > 18) {
            throw new FrameException('the first frame was not a Hello from a worker of this pool');
        }
        [, $role, $id, $codec, $nonce] = $parts;
        $id = (int) $id;
        $ours = $this->host->codec()->name();
        if ($codec !== $ours) {
            throw new FrameException("it encodes with {$codec} and this worker with {$ours}; run all workers with the same extensions");
        }
        $this->selfAlias = $this->host->admit($role, $id);
        $clientNonce = @hex2bin($nonce);
        if (!\is_string($clientNonce) || \strlen($clientNonce) !== Handshake::NONCE_BYTES) {
            throw new FrameException('its Hello carries no valid nonce');
        }
        $this->clientNonce = $clientNonce;
        $this->serverNonce = Handshake::nonce();
        $this->clientIdentity = "{$role}:{$id}";
        $proof = $this->host->handshake()->serverProof($this->clientNonce, $this->serverNonce, $this->clientIdentity, $this->host->identity());
        $this->connection->write(Frames::encode(FrameType::Challenge, "{$this->host->localId()} " . bin2hex($this->serverNonce) . ' ' . bin2hex($proof)));
    }

    private function refuse(string $why): void
    {
        $this->logger->warning('Closing a link from {peer}: {error}', ['peer' => $this->peer === null ? 'an unknown process' : "worker {$this->peer}", 'error' => $why]);
        $this->cancelTimers();
        $this->connection->close(); // the mesh forgets the link when it closes
    }

    private function cancelTimers(): void
    {
        $loop = $this->loop;
        foreach ([$this->ackTimer, $this->retryTimer, $this->handshakeTimer] as $timer) {
            if ($timer !== null) {
                $loop->cancel($timer);
            }
        }
        $this->ackTimer = $this->retryTimer = $this->handshakeTimer = null;
    }
}
