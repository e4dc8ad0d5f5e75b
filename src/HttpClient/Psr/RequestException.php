<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Psr;

use Psr\Http\Client\RequestExceptionInterface;
use Psr\Http\Message\RequestInterface;

/**
 * PSR-18: the request is invalid (a bad URL or header) or its answer could not be taken (over
 * its size cap, cancelled, no connection free in time); getPrevious() is the client's exception.
 */
final class RequestException extends \RuntimeException implements RequestExceptionInterface
{
    public function __construct(private readonly RequestInterface $request, string $message, \Throwable $previous)
    {
        parent::__construct($message, 0, $previous);
    }

    public function getRequest(): RequestInterface
    {
        return $this->request;
    }
}
