<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\Server\Internal\ResponseStreamer;

/**
 * The body of a streamed response, handed to the producer of {@see \Nexus\Http\Response::stream()}.
 */
final class ResponseStream
{
    /**
     * @internal the server creates it
     */
    public function __construct(
        private readonly ResponseStreamer $streamer,
        private readonly bool $chunked,
    ) {}

    /**
     * Sends $data as the next piece of the body. Waits (suspending only this request's fiber)
     * while the client is slow to read.
     *
     * @throws StreamClosedException when the client has gone away: stop producing
     */
    public function write(string $data): void
    {
        if ($data === '') {
            return;
        }
        $this->streamer->write($this->chunked ? dechex(\strlen($data)) . "\r\n" . $data . "\r\n" : $data);
    }

    /**
     * Whether the client is still connected (write() would not throw).
     */
    public function isOpen(): bool
    {
        return $this->streamer->isOpen();
    }
}
