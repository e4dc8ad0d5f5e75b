<?php

declare(strict_types=1);

namespace Nexus\Http\Parser;

/**
 * The bytes received are not an acceptable HTTP/1.x request. The server should answer with
 * {@see $status} and close the connection: the parser that threw is unusable afterwards.
 */
final class HttpParseException extends \RuntimeException
{
    public function __construct(
        public readonly int $status,
        string $message,
    ) {
        parent::__construct($message, $status);
    }
}
