<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Psr;

use Psr\Http\Client\NetworkExceptionInterface;
use Psr\Http\Message\RequestInterface;

/**
 * PSR-18: the request could not be completed because of the network or the server (could not
 * connect, TLS, a timeout, a broken or malformed answer); getPrevious() is the client's exception.
 */
final class NetworkException extends \RuntimeException implements NetworkExceptionInterface
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
