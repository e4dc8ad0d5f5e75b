<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Exception;

/**
 * A ping payload longer than 125 bytes was given: control frames carry at most 125 bytes.
 */
final class ControlFrameTooLargeException extends WebSocketException {}
