<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * One of the client's timeouts fired; $kind says which (each kind also has its own class). The
 * connection the request used was closed.
 */
abstract class TimeoutException extends \RuntimeException implements NetworkFailure
{
    public function __construct(
        public readonly TimeoutKind $kind,
        public readonly float $seconds,
        string $message,
    ) {
        parent::__construct($message);
    }
}
