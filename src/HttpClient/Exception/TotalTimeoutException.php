<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The whole request (connection wait, sending, the full response) took longer than the total timeout.
 */
final class TotalTimeoutException extends TimeoutException
{
    public function __construct(float $seconds, string $message)
    {
        parent::__construct(TimeoutKind::Total, $seconds, $message);
    }
}
