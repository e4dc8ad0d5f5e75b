<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Io\Connection;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Internal\Mesh;
use Psr\Log\LoggerInterface;

/**
 * A link another worker opened to this one: it must first prove it belongs to the pool (the
 * pool's secret, in a Hello frame); then its batches are delivered into mailboxes and
 * acknowledged (every 32 batches or 5 ms, whichever comes first).
 *
 * @internal
 */
final class InboundLink
{
    /** Acknowledge after this many batches at the latest ... */
    private const ACK_EVERY = 32;
    /** ... or after this many seconds: an acknowledgement per batch would wake the sender for nothing. */
    private const ACK_DELAY = 0.005;

    private readonly Frames $frames;
    private ?int $peer = null;
    private int $lastSequence = 0;
    private int $unacknowledged = 0;
    private ?int $ackTimer = null;

    public function __construct(
        private readonly Connection $connection,
        private readonly Mesh $mesh,
        private readonly string $secret,
        private readonly MessageCodec $codec,
        private readonly LoggerInterface $logger,
    ) {
        $this->frames = new Frames();
        $connection->onData(function (string $bytes): void {
            $this->received($bytes);
        });
    }

    public function close(): void
    {
        $this->acknowledge();
        $this->connection->close();
    }

    private function received(string $bytes): void
    {
        $this->mesh->system->loop->markActive();
        try {
            foreach ($this->frames->push($bytes) as [$type, $payload]) {
                if ($this->peer === null) {
                    $this->peer = $this->authenticate($type, $payload);

                    continue;
                }
                if ($type !== FrameType::Batch || \strlen($payload) < 8) {
                    throw new FrameException("Worker {$this->peer} sent a {$type->name} frame where batches were expected.");
                }
                $sequence = Frames::sequence($payload);
                $this->mesh->deliverBatch($this->codec->decode(substr($payload, 8)));
                $this->lastSequence = $sequence;
                ++$this->unacknowledged;
            }
        } catch (FrameException $e) {
            $this->logger->warning('Closing a link from {peer}: {error}', ['peer' => $this->peer === null ? 'an unknown process' : "worker {$this->peer}", 'error' => $e->getMessage()]);
            $this->connection->close(); // the mesh forgets the link when it closes

            return;
        }
        if ($this->unacknowledged >= self::ACK_EVERY) {
            $this->acknowledge();
        } elseif ($this->unacknowledged > 0 && $this->ackTimer === null) {
            $loop = $this->mesh->system->loop;
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
            $this->mesh->system->loop->cancel($this->ackTimer);
            $this->ackTimer = null;
        }
        if ($this->unacknowledged > 0 && !$this->connection->isClosed()) {
            $this->unacknowledged = 0;
            $this->connection->write(pack('NCJ', 8, FrameType::Ack->value, $this->lastSequence));
        }
    }

    private function authenticate(FrameType $type, string $payload): int
    {
        $parts = explode(' ', $payload, 3);
        if ($type !== FrameType::Hello || \count($parts) !== 3 || !ctype_digit($parts[0])) {
            throw new FrameException('the first frame was not a Hello from a worker of this pool');
        }
        if ($parts[1] !== $this->codec->name()) {
            throw new FrameException("it encodes with {$parts[1]} and this worker with {$this->codec->name()}; run all workers with the same extensions");
        }
        if (!hash_equals($this->secret, $parts[2])) {
            throw new FrameException('it does not know the pool secret');
        }

        return (int) $parts[0];
    }
}
