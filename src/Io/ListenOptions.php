<?php

declare(strict_types=1);

namespace Nexus\Io;

/**
 * How a Listener listens.
 *
 * - backlog: the kernel's queue of connections not accepted yet (capped by net.core.somaxconn).
 * - reusePort: SO_REUSEPORT, so that several worker processes can listen on the same port and the
 *   kernel spreads connections over them.
 * - maxConnections: open connections at most; at the cap the listener stops accepting (new
 *   connections wait in the backlog) until one closes. Null (the default): what the loop's driver
 *   can hold, less reservedDescriptors: the descriptor limit (RLIMIT_NOFILE) with epoll,
 *   MAX_CONNECTIONS_LIMIT (1,000) with stream_select(), which cannot watch descriptors past
 *   FD_SETSIZE (1,024). More than the driver can hold is refused when listening.
 * - tcpNoDelay: TCP_NODELAY on accepted connections (no Nagle delay for small writes).
 * - acceptBatch: connections accepted at most per readiness event, so a burst cannot starve the
 *   rest of the loop.
 * - writeHighWaterMark: see Connection::write().
 * - acceptBackoff: seconds to stop accepting when the process or system is out of file
 *   descriptors (EMFILE, ENFILE) or socket memory, or a connection was refused for its descriptor
 *   number; the clients wait in the backlog meanwhile.
 * - reservedDescriptors: descriptors that accepted connections never take, left for sockets
 *   opened later (a database connection, a link to another worker, a log file). With
 *   stream_select() these are the top ones below FD_SETSIZE (1024): a connection that gets one, or
 *   a higher one, is closed at once (see Listener). With epoll the default connection cap leaves
 *   this many below the descriptor limit.
 */
final readonly class ListenOptions
{
    /** The most connections a listener on a stream_select() loop takes. */
    public const MAX_CONNECTIONS_LIMIT = 1000;

    public function __construct(
        public int $backlog = 511,
        public bool $reusePort = false,
        public ?int $maxConnections = null,
        public bool $tcpNoDelay = false,
        public int $acceptBatch = 64,
        public int $writeHighWaterMark = Connection::DEFAULT_HIGH_WATER_MARK,
        public float $acceptBackoff = 0.1,
        public int $reservedDescriptors = 32,
    ) {
        if ($backlog < 1) {
            throw new \InvalidArgumentException("The listen backlog must be at least 1, got {$backlog}.");
        }
        if ($maxConnections !== null && $maxConnections < 1) {
            throw new \InvalidArgumentException("maxConnections must be at least 1 (or null: what the loop's driver can hold), got {$maxConnections}.");
        }
        if ($acceptBatch < 1) {
            throw new \InvalidArgumentException("acceptBatch must be at least 1, got {$acceptBatch}.");
        }
        if (!($acceptBackoff > 0.0) || is_infinite($acceptBackoff)) {
            throw new \InvalidArgumentException("acceptBackoff must be a finite number of seconds above zero, got {$acceptBackoff}.");
        }
        if ($reservedDescriptors < 0 || $reservedDescriptors > 512) {
            throw new \InvalidArgumentException("reservedDescriptors must be between 0 and 512, got {$reservedDescriptors}.");
        }
        if ($writeHighWaterMark < 1) {
            throw new \InvalidArgumentException("writeHighWaterMark must be at least 1 byte, got {$writeHighWaterMark}.");
        }
    }
}
