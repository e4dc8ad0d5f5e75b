<?php

declare(strict_types=1);

namespace Nexus\Tests\Support\WebSocket;

use Nexus\Http\HttpDate;
use Nexus\Http\Parser\HttpParseException;
use Nexus\Http\Parser\RequestParser;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use Nexus\Http\WebSocket\Handshake;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Loop;

/**
 * A WebSocket server for tests and benchmarks, made of the real parts and nothing else: a
 * Nexus\Io Listener, the HTTP RequestParser, Handshake, and a WebSocketConnection per client. It
 * is the upgrade path the HTTP server will take, in miniature: read the request head (at most
 * 16 KiB, within headTimeout), negotiate, write the 101 and hand the socket over together with
 * any bytes that came after the head.
 */
final class TestServer
{
    private const MAX_HEAD = 16_384;

    /** @var list<WebSocketConnection> every connection opened, in order */
    public array $connections = [];
    private readonly Handshake $handshake;

    /**
     * @param \Closure(WebSocketConnection): void $onOpen sets onMessage() and the rest; start() is called after it
     */
    private function __construct(
        private readonly Loop $loop,
        public readonly Listener $listener,
        private readonly WebSocketOptions $options,
        private readonly \Closure $onOpen,
        private readonly float $headTimeout,
    ) {
        $this->handshake = new Handshake($options);
        $listener->onConnection($this->accept(...));
    }

    /**
     * @param \Closure(WebSocketConnection): void $onOpen
     */
    public static function listen(
        Loop $loop,
        \Closure $onOpen,
        WebSocketOptions $options = new WebSocketOptions(),
        string $address = 'tcp://127.0.0.1:0',
        ListenOptions $listenOptions = new ListenOptions(tcpNoDelay: true),
        float $headTimeout = 10.0,
    ): self {
        return new self($loop, Listener::listen($loop, $address, $listenOptions), $options, $onOpen, $headTimeout);
    }

    /**
     * A server that sends every message back as it came (text as text, binary as binary).
     */
    public static function echo(Loop $loop, WebSocketOptions $options = new WebSocketOptions(), string $address = 'tcp://127.0.0.1:0'): self
    {
        return self::listen($loop, static function (WebSocketConnection $ws): void {
            $ws->onMessage(static function (string $payload, bool $binary) use ($ws): void {
                $ws->send($payload, $binary);
            });
        }, $options, $address);
    }

    public function address(): string
    {
        return $this->listener->address();
    }

    public function close(): void
    {
        $this->listener->close();
    }

    private function accept(Connection $connection): void
    {
        $head = '';
        $done = false;
        $timer = $this->loop->delay($this->headTimeout, static function () use ($connection, &$done): void {
            if (!$done) {
                $done = true;
                $connection->close();
            }
        });
        $this->loop->unreference($timer);
        // This callback stays registered after the upgrade (Io\Connection has no way to remove
        // one) and ignores everything from then on: the WebSocketConnection reads for itself.
        $connection->onData(function (string $data) use ($connection, &$head, &$done, $timer): void {
            if ($done) {
                return;
            }
            $head .= $data;
            $end = strpos($head, "\r\n\r\n");
            if ($end === false) {
                if (\strlen($head) > self::MAX_HEAD) {
                    $done = true;
                    $this->loop->cancel($timer);
                    $this->reject($connection, Response::text("Request head too large.\n", 431));
                }

                return;
            }
            $done = true;
            $this->loop->cancel($timer);
            $this->upgrade($connection, substr($head, 0, $end + 4), substr($head, $end + 4));
        });
    }

    private function upgrade(Connection $connection, string $head, string $rest): void
    {
        $parser = new RequestParser();
        $parser->feed($head);
        try {
            $request = $parser->next();
        } catch (HttpParseException $e) {
            $this->reject($connection, Response::text($e->getMessage() . "\n", $e->status));

            return;
        }
        if ($request === null) {
            $this->reject($connection, Response::text("Incomplete request.\n", 400));

            return;
        }
        $result = $this->handshake->negotiate($request);
        if (!$result->isAccepted()) {
            $this->reject($connection, $result->response);

            return;
        }
        $connection->write(Handshake::serialize($result->response));
        $ws = new WebSocketConnection($this->loop, $connection, $this->options, $result->subprotocol, $result->deflate);
        $this->connections[] = $ws;
        ($this->onOpen)($ws);
        $ws->start($rest);
    }

    private function reject(Connection $connection, Response $response): void
    {
        $connection->end(ResponseSerializer::serialize($response, false, HttpDate::now()));
    }
}
