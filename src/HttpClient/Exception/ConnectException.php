<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * No connection could be opened to the origin: refused, unreachable, or the host name did not
 * resolve. The request was not sent.
 */
final class ConnectException extends \RuntimeException implements NetworkFailure {}
