<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Worker\Codec\BatchLayout;
use Nexus\Worker\Codec\Codecs;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Transport\Frames;
use Nexus\Worker\Transport\FrameType;
use Nexus\Worker\Transport\Handshake;

/**
 * One end of a link between workers, driven by hand from a test: as a server it stands in for a
 * worker (it answers the handshake, then records batches and acknowledges them only when told);
 * as a client it is another process that tries to get in (with the right secret or not, replaying
 * bytes, claiming any worker number). Non-blocking; call poll() from a runUntil() condition.
 */
final class LinkPeer
{
    /** @var resource|null */
    private $server = null;
    /** @var resource|null */
    private $stream = null;
    private Frames $frames;
    private string $nonce = '';
    public bool $authenticated = false;
    public bool $closedByOtherSide = false;
    /** Everything read from the other side, raw. */
    public string $received = '';
    /** @var array<int, array{int, string}> batches by sequence number: wire format, bytes */
    public array $batches = [];
    /** @var list<array{FrameType, string}> */
    public array $frameLog = [];
    public bool $reading = true;
    /** Everything sent to the other side, raw. */
    public string $sent = '';

    private function __construct(private readonly string $secret, private readonly int $id)
    {
        $this->frames = new Frames();
    }

    /**
     * Listens at $path as worker $id (the test then points worker-<id>.sock at it, or uses the name).
     */
    public static function server(string $path, string $secret, int $id): self
    {
        $peer = new self($secret, $id);
        @unlink($path);
        $server = stream_socket_server('unix://' . $path);
        if ($server === false) {
            throw new \RuntimeException("Cannot listen on {$path}");
        }
        stream_set_blocking($server, false);
        $peer->server = $server;

        return $peer;
    }

    /**
     * Connects to a worker's socket (a path, or tcp://host:port for a node's) as another process would.
     */
    public static function client(string $path, string $secret, int $claimedId): self
    {
        $peer = new self($secret, $claimedId);
        $stream = stream_socket_client(str_starts_with($path, 'tcp://') ? $path : 'unix://' . $path);
        if ($stream === false) {
            throw new \RuntimeException("Cannot connect to {$path}");
        }
        stream_set_blocking($stream, false);
        $peer->stream = $stream;

        return $peer;
    }

    public function hello(string $role = 'peer', ?string $nonce = null, string $codec = ''): string
    {
        $this->nonce = $nonce ?? Handshake::nonce();
        $codec = $codec !== '' ? $codec : (\function_exists('igbinary_serialize') ? 'igbinary' : 'serialize');
        $bytes = Frames::encode(FrameType::Hello, "nexus1 {$role} {$this->id} {$codec} " . bin2hex($this->nonce));
        $this->send($bytes);

        return $bytes;
    }

    public function send(string $bytes): void
    {
        \assert(\is_resource($this->stream));
        @fwrite($this->stream, $bytes); // the other side may have closed: poll() then sees it
        $this->sent .= $bytes;
    }

    /**
     * Sends one message as a batch, the way a worker does.
     */
    public function sendMessage(int $sequence, string $path, mixed $message): void
    {
        $format = 0;
        $bytes = Codecs::best(new MessageClasses())->encode(BatchLayout::single($path, $message, -1, ''), 0, $format);
        $this->send(Frames::encode(FrameType::Batch, pack('JC', $sequence, $format) . $bytes));
    }

    /**
     * Sends messages (path, message) as one batch the way a worker of the former version did:
     * four values per message (path, message, sender worker, sender path), format 1 or 2.
     *
     * @param list<array{string, mixed}> $messages
     */
    public function sendFormerBatch(int $sequence, array $messages): void
    {
        $batch = [[]];
        foreach ($messages as [$path, $message]) {
            array_push($batch, $path, $message, -1, '');
        }
        [$format, $bytes] = \function_exists('igbinary_serialize')
            ? [MessageCodec::FORMER_IGBINARY, (string) igbinary_serialize($batch)]
            : [MessageCodec::FORMER_NATIVE, serialize($batch)];
        $this->send(Frames::encode(FrameType::Batch, pack('JC', $sequence, $format) . $bytes));
    }

    /**
     * Accepts, reads and answers what is due; returns $this for chaining in conditions.
     */
    public function poll(): self
    {
        if ($this->server !== null) {
            $accepted = @stream_socket_accept($this->server, 0);
            if ($accepted !== false) { // the newest connection (the worker may have given up an older one)
                if (\is_resource($this->stream)) {
                    fclose($this->stream);
                }
                stream_set_blocking($accepted, false);
                $this->stream = $accepted;
                $this->frames = new Frames();
                $this->closedByOtherSide = false;
            }
        }
        if ($this->stream === null || !$this->reading || $this->closedByOtherSide) {
            return $this;
        }
        $bytes = '';
        do { // everything the kernel holds now, up to 4 MiB per poll
            $chunk = (string) @fread($this->stream, 1 << 20);
            $bytes .= $chunk;
        } while ($chunk !== '' && \strlen($bytes) < 4 << 20);
        if ($bytes === '' && feof($this->stream)) {
            $this->closedByOtherSide = true;

            return $this;
        }
        $this->received .= $bytes;
        foreach ($this->frames->push($bytes) as [$type, $payload]) {
            $this->frameLog[] = [$type, $payload];
            if ($type === FrameType::Hello && $this->server !== null) {
                $this->answerHello($payload);
            } elseif ($type === FrameType::Challenge && $this->server === null && $this->nonce !== '') {
                $this->answerChallenge($payload);
            } elseif ($type === FrameType::Proof) {
                $this->authenticated = true;
            } elseif ($type === FrameType::Batch) {
                $this->batches[Frames::sequence($payload)] = [\ord($payload[8]), substr($payload, 9)];
            }
        }

        return $this;
    }

    public function ack(int $sequence): void
    {
        $this->send(pack('NCJ', 8, FrameType::Ack->value, $sequence));
    }

    public function goodbye(): void
    {
        $this->send(Frames::encode(FrameType::Goodbye, ''));
    }

    public function close(): void
    {
        if (\is_resource($this->stream)) {
            fclose($this->stream);
        }
        $this->stream = null;
        if (\is_resource($this->server)) {
            fclose($this->server);
        }
        $this->server = null;
    }

    public function isConnected(): bool
    {
        return $this->stream !== null;
    }

    private function answerHello(string $payload): void
    {
        [, $role, $id, , $nonce] = explode(' ', $payload);
        $clientNonce = (string) hex2bin($nonce);
        $this->nonce = Handshake::nonce();
        $proof = (new Handshake($this->secret))->serverProof($clientNonce, $this->nonce, "{$role}:{$id}", "worker:{$this->id}");
        $this->send(Frames::encode(FrameType::Challenge, "{$this->id} " . bin2hex($this->nonce) . ' ' . bin2hex($proof)));
        $this->authenticated = true;
    }

    private function answerChallenge(string $payload): void
    {
        [$serverId, $serverNonce] = explode(' ', $payload);
        $proof = (new Handshake($this->secret))->clientProof($this->nonce, (string) hex2bin($serverNonce), "peer:{$this->id}", "worker:{$serverId}");
        $this->send(Frames::encode(FrameType::Proof, bin2hex($proof)));
    }
}
