<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Exception;

/**
 * close() was given a code that may not be sent (use 1000-1003, 1007-1014 or 3000-4999) or a
 * reason longer than 123 bytes.
 */
final class InvalidCloseException extends WebSocketException {}
