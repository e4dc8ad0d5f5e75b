<?php

declare(strict_types=1);

namespace Nexus\Bench\WebSocket;

/**
 * A blocking WebSocket client for the benchmark's bookkeeping: it opens idle connections by the
 * hundred (no loop, so no descriptor limit of its own), asks a server for its memory, and times
 * echo round trips one by one. Every read has a timeout.
 */
final class RawClient
{
    /**
     * @param resource $stream
     */
    private function __construct(private readonly mixed $stream) {}

    /**
     * Connects and completes the handshake; null when the server did not answer 101 within
     * $timeout (it takes no more connections).
     */
    public static function open(int $port, string $path, bool $offerDeflate = false, float $timeout = 5.0): ?self
    {
        $stream = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, $timeout);
        if ($stream === false) {
            return null;
        }
        stream_set_timeout($stream, (int) $timeout, (int) (fmod($timeout, 1.0) * 1e6));
        fwrite($stream, "GET {$path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            . 'Sec-WebSocket-Key: ' . base64_encode(random_bytes(16)) . "\r\nSec-WebSocket-Version: 13\r\n"
            . ($offerDeflate ? "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" : '') . "\r\n");
        $head = '';
        while (!str_contains($head, "\r\n\r\n")) {
            $chunk = fread($stream, 1);
            if ($chunk === false || $chunk === '') {
                fclose($stream);

                return null;
            }
            $head .= $chunk;
        }
        if (!str_starts_with($head, 'HTTP/1.1 101 ')) {
            fclose($stream);

            return null;
        }

        return new self($stream);
    }

    public function sendText(string $text): void
    {
        $key = random_bytes(4);
        $length = \strlen($text);
        $head = \chr(0x81) . ($length < 126 ? \chr(0x80 | $length) : \chr(0x80 | 126) . pack('n', $length));
        fwrite($this->stream, $head . $key . ($text ^ str_repeat($key, intdiv($length, 4) + 1)));
    }

    /**
     * The payload of the next data frame from the server (unmasked, not fragmented).
     */
    public function receive(): string
    {
        $head = $this->read(2);
        $length = \ord($head[1]) & 0x7F;
        if ($length === 126) {
            /** @var array{1: int} $long */
            $long = unpack('n', $this->read(2));
            $length = $long[1];
        } elseif ($length === 127) {
            /** @var array{1: int} $long */
            $long = unpack('J', $this->read(8));
            $length = $long[1];
        }
        $payload = $length === 0 ? '' : $this->read($length);
        $opcode = \ord($head[0]) & 0x0F;

        return $opcode >= 0x8 ? $this->receive() : $payload; // skip pings
    }

    public function close(): void
    {
        @fclose($this->stream);
    }

    private function read(int $length): string
    {
        $bytes = '';
        while (\strlen($bytes) < $length) {
            $chunk = fread($this->stream, max(1, $length - \strlen($bytes)));
            if ($chunk === false || $chunk === '') {
                throw new \RuntimeException('The server closed the connection or did not answer in time.');
            }
            $bytes .= $chunk;
        }

        return $bytes;
    }
}
