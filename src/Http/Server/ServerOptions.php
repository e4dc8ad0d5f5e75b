<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\Parser\ParserLimits;

/**
 * How an HttpServer treats its clients. Times are in seconds, sizes in bytes. Every wait and every
 * buffer has a bound, and each says what happens at it:
 *
 * - limits: request line (414), header block (431), body (413) for the parser.
 * - headerTimeout: a connection that has started a request must deliver its head (request line
 *   and header fields) within this time, or it gets 408 and is closed. A new connection that
 *   sends nothing is closed silently after it.
 * - bodyTimeout: once the head is in, the body may take as long as it needs, but no more than
 *   this may pass without a byte of it arriving (408 and close otherwise).
 * - keepAliveTimeout: an idle keep-alive connection is closed silently after this time.
 * - maxConnections: open connections at most over all the server's listeners; more clients wait
 *   in the kernel backlog until one closes. Null (the default): what the loop's driver can hold
 *   (Io\Listener::capacity(): the descriptor limit less 32 with epoll, 1,000 with stream_select()).
 * - maxPipelined: requests of one connection in progress at once; a client that pipelines more
 *   is not read from until earlier responses are written.
 * - lingerTimeout: after answering a bad request, how long to wait for the client to close before
 *   closing hard (the remaining input is discarded meanwhile, so the client does see the answer).
 * - handlerTimeout: how long a handler may take, counted from when its request was read. Past
 *   it, every wait of the handler (a Future::await(): an actor's reply, a query) ends with a
 *   CancelledException, at once or within the server's sweep period (at most a second), and the
 *   client gets 503 whatever the handler then returns. A handler that computes without waiting
 *   cannot be interrupted (PHP has no preemption): its answer, however late, is sent. A streamed
 *   response's producer runs after the handler and is not under this limit (sendTimeout is).
 * - sendTimeout: how long the client may leave a response unread. When more than the write
 *   high-water mark waits to be sent and the client takes none of it for this long, the
 *   connection is closed and its buffers freed (a streamed response's producer gets
 *   StreamClosedException); a client that reads, however slowly, gets another period.
 * - maxBufferedPerConnection: bytes of received requests (in progress or waiting for a handler)
 *   one connection may hold. Past it, the connection is not read from until its earlier requests
 *   are answered (TCP backpressure). A single request is always read whole, up to the limits.
 * - maxBufferedTotal: the same over all connections. A request whose declared body would take the
 *   server past it, or a chunked body that does, gets 503 (Retry-After: 1) and its connection is
 *   closed, before the body is read; connections with requests in progress stop being read until
 *   the total is below it again. It must hold at least one request of the largest size allowed.
 * - allowedHosts: when given, the only host names (the Host header without its port, any case)
 *   requests may name; any other gets 421 Misdirected Request. Null allows every host.
 */
final readonly class ServerOptions
{
    /** @var list<string>|null lower-case host names */
    public ?array $allowedHosts;

    /**
     * @param list<string>|null $allowedHosts
     */
    public function __construct(
        public ParserLimits $limits = new ParserLimits(),
        public float $headerTimeout = 10.0,
        public float $keepAliveTimeout = 15.0,
        public ?int $maxConnections = null,
        public int $maxPipelined = 16,
        public float $lingerTimeout = 2.0,
        public float $bodyTimeout = 30.0,
        public float $handlerTimeout = 30.0,
        public float $sendTimeout = 30.0,
        public int $maxBufferedPerConnection = 1024 * 1024,
        public int $maxBufferedTotal = 64 * 1024 * 1024,
        ?array $allowedHosts = null,
    ) {
        $timeouts = [
            'headerTimeout' => $headerTimeout,
            'keepAliveTimeout' => $keepAliveTimeout,
            'lingerTimeout' => $lingerTimeout,
            'bodyTimeout' => $bodyTimeout,
            'handlerTimeout' => $handlerTimeout,
            'sendTimeout' => $sendTimeout,
        ];
        foreach ($timeouts as $name => $value) {
            if (!($value > 0.0) || is_infinite($value)) {
                throw new \InvalidArgumentException(\sprintf('ServerOptions::$%s must be a finite number of seconds above zero, got %s.', $name, $value));
            }
        }
        if ($maxConnections !== null && $maxConnections < 1) {
            throw new \InvalidArgumentException("ServerOptions::\$maxConnections must be at least 1 (or null: what the loop's driver can hold), got {$maxConnections}.");
        }
        if ($maxPipelined < 1) {
            throw new \InvalidArgumentException("ServerOptions::\$maxPipelined must be at least 1, got {$maxPipelined}.");
        }
        if ($maxBufferedPerConnection < 1) {
            throw new \InvalidArgumentException("ServerOptions::\$maxBufferedPerConnection must be at least 1 byte, got {$maxBufferedPerConnection}.");
        }
        $largest = $limits->maxRequestLineLength + $limits->maxHeaderBytes + $limits->maxBodyBytes;
        if ($maxBufferedTotal < $largest) {
            throw new \InvalidArgumentException(\sprintf(
                'ServerOptions::$maxBufferedTotal must hold at least one request of the largest size the limits allow (%d bytes: request line, header block and body), got %d; raise it or lower ParserLimits.',
                $largest,
                $maxBufferedTotal,
            ));
        }
        if ($allowedHosts !== null) {
            $hosts = [];
            foreach ($allowedHosts as $host) {
                $host = strtolower(trim($host));
                if ($host === '' || strpbrk($host, "/ \t@") !== false || (str_contains($host, ':') && !str_starts_with($host, '['))) {
                    throw new \InvalidArgumentException("ServerOptions::\$allowedHosts takes host names without scheme or port (a.example, [::1]), got '{$host}'.");
                }
                $hosts[] = $host;
            }
            if ($hosts === []) {
                throw new \InvalidArgumentException('ServerOptions::$allowedHosts is empty, which would refuse every request; pass null to allow every host.');
            }
            $allowedHosts = $hosts;
        }
        $this->allowedHosts = $allowedHosts;
    }
}
