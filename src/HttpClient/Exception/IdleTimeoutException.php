<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * No byte moved for the idle timeout while the request was sent or the response body read.
 */
final class IdleTimeoutException extends TimeoutException
{
    public function __construct(float $seconds, string $message)
    {
        parent::__construct(TimeoutKind::Idle, $seconds, $message);
    }
}
