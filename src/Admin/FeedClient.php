<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Admin\Exception\FeedException;

/**
 * A blocking client of the admin feed, for `nexus top` and scripts (not for code on the loop):
 * once() reads /feed.json, follow() reads the /feed event stream frame by frame.
 *
 * Bounds: every read waits at most $timeout seconds (the feed sends a frame every second); a
 * response head may be 16 KiB, a frame MAX_FRAME_BYTES; past either it throws FeedException.
 */
final class FeedClient
{
    public const MAX_FRAME_BYTES = 8 << 20;
    private const MAX_HEAD_BYTES = 16 << 10;

    /** @var resource|null */
    private $socket = null;
    private string $buffer = '';

    public function __construct(
        private readonly AdminAddress $address,
        private readonly float $timeout = 5.0,
    ) {}

    /**
     * The current frame.
     *
     * @return array<mixed>
     *
     * @throws FeedException
     */
    public function once(): array
    {
        try {
            $this->request('/feed.json');
            $head = $this->head();
            $length = preg_match('/\r\ncontent-length:\s*(\d+)/i', $head, $m) === 1 ? (int) $m[1] : null;
            if ($length === null || $length > self::MAX_FRAME_BYTES) {
                throw new FeedException("{$this->address} answered /feed.json without a usable Content-Length; is it a Nexus admin listener?");
            }
            while (\strlen($this->buffer) < $length) {
                $this->fill();
            }

            return self::decode(substr($this->buffer, 0, $length));
        } finally {
            $this->close();
        }
    }

    /**
     * Calls $onFrame with each frame of the live feed until it returns false.
     *
     * @param \Closure(array<mixed>): bool $onFrame
     *
     * @throws FeedException when the feed cannot be read (the caller may reconnect)
     */
    public function follow(\Closure $onFrame): void
    {
        try {
            $this->request('/feed');
            $head = $this->head();
            if (stripos($head, "\r\ntransfer-encoding: chunked") === false) {
                throw new FeedException("{$this->address} did not answer /feed with an event stream.");
            }
            $events = '';
            while (true) {
                $events .= $this->chunk();
                while (($end = strpos($events, "\n\n")) !== false) {
                    $event = substr($events, 0, $end);
                    $events = substr($events, $end + 2);
                    foreach (explode("\n", $event) as $line) {
                        if (str_starts_with($line, 'data: ') && !$onFrame(self::decode(substr($line, 6)))) {
                            return;
                        }
                    }
                }
                if (\strlen($events) > self::MAX_FRAME_BYTES) {
                    throw new FeedException("A feed frame from {$this->address} is larger than " . self::MAX_FRAME_BYTES . ' bytes.');
                }
            }
        } finally {
            $this->close();
        }
    }

    private function request(string $target): void
    {
        $this->buffer = '';
        $socket = @stream_socket_client($this->address->uri(), $errno, $error, $this->timeout);
        if ($socket === false) {
            throw new FeedException("Cannot reach the admin listener at {$this->address}: {$error}. Is the server running with --admin={$this->address}?");
        }
        $this->socket = $socket;
        fwrite($socket, "GET {$target} HTTP/1.1\r\nHost: {$this->address}\r\nUser-Agent: nexus-top\r\n\r\n");
    }

    private function head(): string
    {
        while (($end = strpos($this->buffer, "\r\n\r\n")) === false) {
            if (\strlen($this->buffer) > self::MAX_HEAD_BYTES) {
                throw new FeedException("{$this->address} sent a response head over 16 KiB.");
            }
            $this->fill();
        }
        $head = substr($this->buffer, 0, $end);
        $this->buffer = substr($this->buffer, $end + 4);
        if (!str_starts_with($head, 'HTTP/1.1 200')) {
            throw new FeedException("{$this->address} answered: " . strtok($head, "\r\n"));
        }

        return $head;
    }

    /**
     * The data of the next chunk of a chunked body.
     */
    private function chunk(): string
    {
        while (($end = strpos($this->buffer, "\r\n")) === false) {
            $this->fill();
        }
        $size = hexdec(trim(substr($this->buffer, 0, $end)));
        if (!\is_int($size) || $size > self::MAX_FRAME_BYTES) {
            throw new FeedException("{$this->address} sent a malformed or oversized chunk.");
        }
        if ($size === 0) {
            throw new FeedException("The feed at {$this->address} ended (the server is stopping).");
        }
        while (\strlen($this->buffer) < $end + 2 + $size + 2) {
            $this->fill();
        }
        $data = substr($this->buffer, $end + 2, $size);
        $this->buffer = substr($this->buffer, $end + 2 + $size + 2);

        return $data;
    }

    private function fill(): void
    {
        \assert(\is_resource($this->socket));
        $read = [$this->socket];
        $write = $except = null;
        $ready = @stream_select($read, $write, $except, (int) $this->timeout, (int) (fmod($this->timeout, 1.0) * 1e6));
        if ($ready !== 1) {
            throw new FeedException("The admin listener at {$this->address} sent nothing for {$this->timeout} s.");
        }
        $data = fread($this->socket, 65536);
        if ($data === false || ($data === '' && feof($this->socket))) {
            throw new FeedException("The admin listener at {$this->address} closed the connection.");
        }
        $this->buffer .= $data;
    }

    private function close(): void
    {
        if (\is_resource($this->socket)) {
            fclose($this->socket);
        }
        $this->socket = null;
    }

    /**
     * @return array<mixed>
     */
    private static function decode(string $json): array
    {
        $frame = json_decode($json, true);
        if (!\is_array($frame) || !\is_array($frame['headline'] ?? null)) {
            throw new FeedException('The admin listener sent something that is not a feed frame.');
        }

        return $frame;
    }
}
