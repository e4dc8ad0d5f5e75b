<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The response head did not arrive within the head timeout after the request was sent.
 */
final class HeadTimeoutException extends TimeoutException
{
    public function __construct(float $seconds, string $message)
    {
        parent::__construct(TimeoutKind::Head, $seconds, $message);
    }
}
