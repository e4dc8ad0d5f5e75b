<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Exception;

/**
 * Base of the WebSocket layer's exceptions: catch this to handle them all.
 */
abstract class WebSocketException extends \RuntimeException {}
