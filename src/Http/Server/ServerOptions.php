<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Http\Parser\ParserLimits;
use Nexus\Io\ListenOptions;

/**
 * How an HttpServer treats its clients. Times are in seconds.
 *
 * - limits: request line (414), header block (431), body (413) for the parser.
 * - headerTimeout: a connection that has started a request must deliver its head (request line
 *   and header fields) within this time, or it gets 408 and is closed. A new connection that
 *   sends nothing is closed silently after it.
 * - bodyTimeout: once the head is in, the body may take as long as it needs, but no more than
 *   this may pass without a byte of it arriving (408 and close otherwise).
 * - keepAliveTimeout: an idle keep-alive connection is closed silently after this time.
 * - maxConnections: open connections at most over all the server's listeners; more clients wait
 *   in the kernel backlog until one closes.
 * - maxPipelined: requests of one connection in progress at once; a client that pipelines more
 *   is not read from until earlier responses are written.
 * - lingerTimeout: after answering a bad request, how long to wait for the client to close before
 *   closing hard (the remaining input is discarded meanwhile, so the client does see the answer).
 */
final readonly class ServerOptions
{
    public function __construct(
        public ParserLimits $limits = new ParserLimits(),
        public float $headerTimeout = 10.0,
        public float $keepAliveTimeout = 15.0,
        public int $maxConnections = ListenOptions::MAX_CONNECTIONS_LIMIT,
        public int $maxPipelined = 16,
        public float $lingerTimeout = 2.0,
        public float $bodyTimeout = 30.0,
    ) {
        $timeouts = ['headerTimeout' => $headerTimeout, 'keepAliveTimeout' => $keepAliveTimeout, 'lingerTimeout' => $lingerTimeout, 'bodyTimeout' => $bodyTimeout];
        foreach ($timeouts as $name => $value) {
            if (!($value > 0.0) || is_infinite($value)) {
                throw new \InvalidArgumentException(\sprintf('ServerOptions::$%s must be a finite number of seconds above zero, got %s.', $name, $value));
            }
        }
        if ($maxConnections < 1 || $maxConnections > ListenOptions::MAX_CONNECTIONS_LIMIT) {
            throw new \InvalidArgumentException(\sprintf(
                'ServerOptions::$maxConnections must be between 1 and %d (stream_select() cannot watch more than 1024 descriptors; run more worker processes instead), got %d.',
                ListenOptions::MAX_CONNECTIONS_LIMIT,
                $maxConnections,
            ));
        }
        if ($maxPipelined < 1) {
            throw new \InvalidArgumentException("ServerOptions::\$maxPipelined must be at least 1, got {$maxPipelined}.");
        }
    }
}
