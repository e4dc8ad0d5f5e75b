<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The connection closed or broke before the response was complete: the server went away
 * mid-head or mid-body, or reset the connection. What arrived of the body is lost.
 */
final class ConnectionLostException extends \RuntimeException implements NetworkFailure {}
