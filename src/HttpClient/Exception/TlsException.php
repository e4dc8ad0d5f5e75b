<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The TLS handshake failed: the certificate did not verify (unknown CA, wrong name, expired) or the
 * server speaks no TLS the client accepts. The request was not sent.
 */
final class TlsException extends \RuntimeException implements NetworkFailure {}
