<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Exception;

/**
 * A text message or close reason to send is not valid UTF-8, which the peer would have to reject
 * with 1007: send it as binary, or fix its encoding (mb_convert_encoding()).
 */
final class InvalidUtf8Exception extends WebSocketException {}
