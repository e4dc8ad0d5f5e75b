<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * The TLS handshake on a connection failed (the peer does not speak TLS, its certificate did not
 * verify, it offered none) or did not finish in time; the connection is closed.
 */
final class TlsHandshakeException extends IoException {}
