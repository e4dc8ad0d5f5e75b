<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * Connecting (TCP, TLS negotiation, authentication) took longer than PgConfig::$connectTimeout.
 * Check the host and port, or raise connectTimeout if the server is just slow.
 */
final class PgConnectTimeoutException extends PgConnectionException {}
