<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The server's answer is not valid HTTP/1.1: a bad status line or header line, both Content-Length
 * and Transfer-Encoding, an invalid Content-Length or chunk size, bytes where none may be. The
 * connection was closed, since nothing after such bytes can be trusted.
 */
final class MalformedResponseException extends \RuntimeException implements NetworkFailure {}
