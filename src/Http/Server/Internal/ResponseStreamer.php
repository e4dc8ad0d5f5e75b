<?php

declare(strict_types=1);

namespace Nexus\Http\Server\Internal;

use Nexus\Http\HttpDate;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use Nexus\Http\Server\RequestTask;
use Nexus\Http\Server\ResponseStream;
use Nexus\Http\Server\ServerConnection;
use Nexus\Http\Server\StreamClosedException;
use Nexus\Io\Connection;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * Writes one streamed response (Response::stream()) in its task's fiber: waits for its turn
 * (the responses before it are sent), writes the head, then runs the producer, whose every
 * ResponseStream::write() comes here. Chunked for HTTP/1.1; for HTTP/1.0 the body ends when the
 * connection does, so the connection closes after it.
 *
 * Back-pressure: when a write leaves the connection's buffer above its high-water mark, the
 * ServerConnection stops reading and times the client's reading (sendTimeout), and the producer
 * waits here until the buffer drains (ServerConnection::awaitDrain()); a client that goes away
 * meanwhile ends the producer with a StreamClosedException.
 *
 * @internal created by ServerConnection for a response with a producer
 */
final class ResponseStreamer
{
    public function __construct(
        private readonly ServerConnection $owner,
        private readonly Connection $connection,
        private readonly Loop $loop,
        private readonly ?LoggerInterface $logger,
    ) {}

    /**
     * The head of a response whose body follows it in pieces.
     */
    public static function head(Response $response, bool $keepAlive, bool $head, string $protocolVersion): string
    {
        if ($protocolVersion !== '1.0') {
            return ResponseSerializer::serialize($response, $keepAlive, HttpDate::now(), $head, true, $protocolVersion);
        }

        // HTTP/1.0 has no chunking: the body ends when the connection does, so no Content-Length.
        return str_replace(
            "\r\nContent-Length: 0\r\n",
            "\r\n",
            ResponseSerializer::serialize($response, false, HttpDate::now(), $head, false, '1.0'),
        );
    }

    /**
     * Streams the response of $task, produced by $producer, once its turn has come.
     *
     * @param \Closure(ResponseStream): void $producer
     */
    public function stream(RequestTask $task, \Closure $producer): void
    {
        if ($this->owner->isClosed()) {
            return;
        }
        if (!$this->owner->isFirst($task)) {
            /** @var Deferred<null> $turn */
            $turn = new Deferred($this->loop);
            $task->turn = $turn;
            $turn->future()->await();
            if ($this->connection->isClosed()) {
                return;
            }
        }
        \assert($task->response !== null);
        $chunked = $task->protocolVersion !== '1.0';
        $keepAlive = $chunked && $this->owner->keepsAlive($task);
        if (!$this->connection->write(self::head($task->response, $keepAlive, false, $task->protocolVersion))) {
            $this->owner->writeBlocked();
        }
        try {
            $producer(new ResponseStream($this, $chunked));
            if ($chunked) {
                $this->write("0\r\n\r\n");
            }
        } catch (StreamClosedException) {
            return;
        } catch (\Throwable $e) {
            // The head is out: the only way left to tell the client the body is broken is to
            // cut the connection before the last chunk.
            $this->logger?->error('A streamed response failed half-way; closing its connection: {message}', [
                'message' => $e->getMessage(),
                'exception' => $e,
            ]);
            $this->connection->close();

            return;
        }
        $this->owner->streamed($task, $keepAlive);
    }

    /**
     * @internal for ResponseStream: the next bytes of the body, as they go on the wire
     */
    public function write(string $bytes): void
    {
        if ($this->owner->isClosed()) {
            throw new StreamClosedException('The client has gone away; stop writing this response.');
        }
        if ($this->connection->write($bytes) || $this->connection->isClosed()) {
            return;
        }
        if (!$this->owner->awaitDrain()) {
            throw new StreamClosedException('The client went away while the response was streaming; stop writing it.');
        }
    }

    /**
     * @internal for ResponseStream
     */
    public function isOpen(): bool
    {
        return !$this->owner->isClosed();
    }
}
