<?php

declare(strict_types=1);

namespace Nexus\Tests\Support\WebSocket;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;

/**
 * A deliberately raw WebSocket client for black-box tests: it writes whatever frames a test asks
 * for (unmasked, reserved bits, broken lengths, ...) and parses the server's frames with its own
 * few lines of code, so that a bug in the server's codec is not mirrored here. It runs on the
 * test's loop beside the server; every wait has a timeout.
 *
 * It is not a client library: it does not defend itself against a hostile server.
 */
final class TestClient
{
    public const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

    private string $buffer = '';
    /** @var list<TestFrame> */
    private array $frames = [];
    private bool $eof = false;
    /** @var Deferred<null>|null */
    private ?Deferred $waiter = null;
    private ?\InflateContext $inflate = null;
    private ?\DeflateContext $deflate = null;

    /**
     * @param array<string, list<string>> $headers the 101 response's fields, lower-case names
     */
    private function __construct(
        private readonly Loop $loop,
        public readonly Connection $connection,
        public readonly int $status,
        public readonly array $headers,
        public string $body,
    ) {}

    /**
     * Opens a connection and sends an upgrade request; $headers add to or (null) remove from
     * the default ones. The returned client holds the status and headers of the response; after
     * a 101 it reads frames.
     *
     * @param array<string, ?string> $headers
     */
    public static function connect(Loop $loop, string $address, array $headers = [], string $path = '/', float $timeout = 10.0): self
    {
        $fields = [
            'Host' => '127.0.0.1',
            'Upgrade' => 'websocket',
            'Connection' => 'Upgrade',
            'Sec-WebSocket-Key' => base64_encode(random_bytes(16)),
            'Sec-WebSocket-Version' => '13',
        ];
        foreach ($headers as $name => $value) {
            if ($value === null) {
                unset($fields[$name]);
            } else {
                $fields[$name] = $value;
            }
        }
        $request = "GET {$path} HTTP/1.1\r\n";
        foreach ($fields as $name => $value) {
            $request .= "{$name}: {$value}\r\n";
        }

        return self::connectRaw($loop, $address, $request . "\r\n", $timeout);
    }

    /**
     * Sends $request as it is and reads the response head (and, for an error, its body).
     */
    public static function connectRaw(Loop $loop, string $address, string $request, float $timeout = 10.0): self
    {
        $connection = Connector::connect($loop, $address, $timeout)->await($timeout);
        /** @var Deferred<string> $head */
        $head = new Deferred($loop);
        $received = '';
        $done = false;
        $connection->onData(static function (string $data) use (&$received, &$done, $head): void {
            if ($done) {
                return;
            }
            $received .= $data;
            if (str_contains($received, "\r\n\r\n")) {
                $done = true;
                $head->resolve($received);
            }
        });
        $connection->onClose(static function () use ($head, &$received): void {
            $head->tryResolve($received);
        });
        $connection->write($request);
        $bytes = $head->future()->await($timeout);
        $end = strpos($bytes, "\r\n\r\n");
        if ($end === false) {
            throw new \RuntimeException('The server closed the connection without a response head; got: ' . var_export($bytes, true));
        }
        $lines = explode("\r\n", substr($bytes, 0, $end));
        $statusLine = array_shift($lines);
        if (preg_match('#^HTTP/1\.1 (\d{3}) #', $statusLine, $match) !== 1) {
            throw new \RuntimeException("Not an HTTP/1.1 status line: {$statusLine}");
        }
        $headers = [];
        foreach ($lines as $line) {
            [$name, $value] = explode(':', $line, 2) + [1 => ''];
            $headers[strtolower($name)][] = trim($value);
        }
        $rest = substr($bytes, $end + 4);
        $client = new self($loop, $connection, (int) $match[1], $headers, $rest);
        if ($client->status !== 101) {
            // An error response: collect its body until the server closes.
            $client->body = $rest;
            $connection->onData(static function (string $data) use ($client): void {
                $client->body .= $data;
            });
            $connection->onClose(static function () use ($client): void {
                $client->eof = true;
                $client->wake();
            });

            return $client;
        }
        $connection->onData(static function (string $data) use ($client): void {
            $client->buffer .= $data;
            $client->parse();
        });
        $connection->onEnd(static function () use ($client): void {
            $client->eof = true;
            $client->wake();
        });
        $connection->onClose(static function () use ($client): void {
            $client->eof = true;
            $client->wake();
        });
        if ($rest !== '') {
            $client->buffer = $rest;
            $client->parse();
        }

        return $client;
    }

    public function header(string $name): ?string
    {
        $values = $this->headers[strtolower($name)] ?? null;

        return $values === null ? null : implode(', ', $values);
    }

    /**
     * Whether the 101 carries the right Sec-WebSocket-Accept for $key.
     */
    public static function expectedAccept(string $key): string
    {
        return base64_encode(sha1($key . self::GUID, true));
    }

    public function sendFrame(int $opcode, string $payload, bool $fin = true, int $rsv = 0, bool $mask = true): void
    {
        $this->sendRaw(self::frame($opcode, $payload, $fin, $rsv, $mask));
    }

    /**
     * The bytes of one frame; $rsv holds RSV1-3 as bits 4-6 (0x40 = RSV1).
     */
    public static function frame(int $opcode, string $payload, bool $fin = true, int $rsv = 0, bool $mask = true): string
    {
        $length = \strlen($payload);
        $out = \chr(($fin ? 0x80 : 0) | $rsv | $opcode);
        $maskBit = $mask ? 0x80 : 0;
        if ($length <= 125) {
            $out .= \chr($maskBit | $length);
        } elseif ($length <= 0xFFFF) {
            $out .= \chr($maskBit | 126) . pack('n', $length);
        } else {
            $out .= \chr($maskBit | 127) . pack('J', $length);
        }
        if (!$mask) {
            return $out . $payload;
        }
        $key = random_bytes(4);

        return $out . $key . ($payload ^ str_repeat($key, intdiv($length, 4) + 1));
    }

    public function sendRaw(string $bytes): void
    {
        if ($this->connection->isWritable()) {
            $this->connection->write($bytes);
        }
    }

    public function sendText(string $text): void
    {
        $this->sendFrame(0x1, $text);
    }

    public function sendBinary(string $data): void
    {
        $this->sendFrame(0x2, $data);
    }

    public function sendClose(int $code = 1000, string $reason = ''): void
    {
        $this->sendFrame(0x8, pack('n', $code) . $reason);
    }

    /**
     * Sends $message compressed (RSV1) with this client's own deflate context (context takeover).
     */
    public function sendCompressed(string $message, bool $binary = false): void
    {
        $this->deflate ??= deflate_init(\ZLIB_ENCODING_RAW) ?: throw new \RuntimeException('deflate_init failed');
        $data = (string) deflate_add($this->deflate, $message, \ZLIB_SYNC_FLUSH);
        $this->sendFrame($binary ? 0x2 : 0x1, substr($data, 0, -4), true, 0x40);
    }

    /**
     * Inflates the payload of a compressed message from the server (context takeover).
     */
    public function inflate(string $payload): string
    {
        $this->inflate ??= inflate_init(\ZLIB_ENCODING_RAW) ?: throw new \RuntimeException('inflate_init failed');

        return (string) inflate_add($this->inflate, $payload . "\x00\x00\xff\xff", \ZLIB_SYNC_FLUSH);
    }

    /**
     * The next frame from the server; null once the server has closed the connection and no
     * frame is left.
     *
     * @phpstan-impure it reads from the socket
     */
    public function nextFrame(float $timeout = 10.0): ?TestFrame
    {
        while ($this->frames === []) {
            if ($this->eof) {
                return null;
            }
            $this->waiter = new Deferred($this->loop);
            $this->waiter->future()->await($timeout);
        }

        return array_shift($this->frames);
    }

    /**
     * The next frame that is not a ping or pong.
     *
     * @phpstan-impure it reads from the socket
     */
    public function nextDataOrClose(float $timeout = 10.0): ?TestFrame
    {
        while (true) {
            $frame = $this->nextFrame($timeout);
            if ($frame === null || ($frame->opcode !== 0x9 && $frame->opcode !== 0xA)) {
                return $frame;
            }
        }
    }

    /**
     * Reads until the server's close frame and then until it closes the TCP connection; returns
     * the close frame (null if the connection ended without one).
     *
     * @phpstan-impure it reads from the socket
     */
    public function awaitClose(float $timeout = 10.0): ?TestFrame
    {
        $close = null;
        while (($frame = $this->nextFrame($timeout)) !== null) {
            if ($frame->opcode === 0x8) {
                $close = $frame;
            }
        }

        return $close;
    }

    /**
     * Waits until the server has closed the connection (its FIN or a reset).
     */
    public function awaitEof(float $timeout = 10.0): void
    {
        while (!$this->eof) {
            $this->waiter = new Deferred($this->loop);
            $this->waiter->future()->await($timeout);
        }
    }

    public function isEof(): bool
    {
        return $this->eof;
    }

    public function close(): void
    {
        $this->connection->close();
    }

    private function wake(): void
    {
        $waiter = $this->waiter;
        $this->waiter = null;
        $waiter?->tryResolve(null);
    }

    private function parse(): void
    {
        while (true) {
            $length = \strlen($this->buffer);
            if ($length < 2) {
                break;
            }
            $b0 = \ord($this->buffer[0]);
            $b1 = \ord($this->buffer[1]);
            $payloadLength = $b1 & 0x7F;
            $at = 2;
            if ($payloadLength === 126) {
                if ($length < 4) {
                    break;
                }
                $payloadLength = (\ord($this->buffer[2]) << 8) | \ord($this->buffer[3]);
                $at = 4;
            } elseif ($payloadLength === 127) {
                if ($length < 10) {
                    break;
                }
                /** @var array{1: int} $long */
                $long = unpack('J', substr($this->buffer, 2, 8));
                $payloadLength = $long[1];
                $at = 10;
            }
            $masked = ($b1 & 0x80) !== 0;
            $key = '';
            if ($masked) {
                $key = substr($this->buffer, $at, 4);
                $at += 4;
            }
            if ($length < $at + $payloadLength) {
                break;
            }
            $payload = substr($this->buffer, $at, $payloadLength);
            if ($masked && $payloadLength > 0) {
                $payload ^= str_repeat($key, intdiv($payloadLength, 4) + 1);
            }
            $this->buffer = substr($this->buffer, $at + $payloadLength);
            $this->frames[] = new TestFrame($b0 & 0x0F, ($b0 & 0x80) !== 0, $b0 & 0x70, $masked, $payload);
        }
        $this->wake();
    }
}
