<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Psr;

use Nexus\HttpClient\Exception\NetworkFailure;
use Nexus\HttpClient\HttpClient;
use Nexus\HttpClient\RequestBody;
use Nexus\HttpClient\RequestOptions;
use Nyholm\Psr7\Factory\Psr17Factory;
use Psr\Http\Client\ClientInterface;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamFactoryInterface;

/**
 * PSR-18 over HttpClient, for libraries that take a Psr\Http\Client\ClientInterface.
 * sendRequest() awaits the response: inside a fiber (a handler, an actor) only that fiber waits
 * and the worker serves others; from top-level code it runs the loop until the answer is there.
 *
 * The response body is buffered (the client's maxBodySize applies) and decoded from gzip/deflate
 * (Content-Encoding and Content-Length are then left out). Redirects are not followed unless the
 * RequestOptions given here say so; 4xx and 5xx answers are responses, not exceptions (PSR-18).
 * Failures: NetworkException (NetworkExceptionInterface) for connect, TLS, timeouts and broken or
 * malformed answers; RequestException (RequestExceptionInterface) for a request that cannot be
 * sent as it is or a response over its size cap. A request body larger than 1 MiB, or of unknown
 * size, is streamed from the PSR stream instead of copied.
 */
final class Psr18Client implements ClientInterface
{
    private const INLINE_BODY = 1 << 20;

    public function __construct(
        private readonly HttpClient $client,
        private readonly ?RequestOptions $options = null,
        private readonly ResponseFactoryInterface&StreamFactoryInterface $factory = new Psr17Factory(),
    ) {}

    public function sendRequest(RequestInterface $request): ResponseInterface
    {
        $headers = [];
        foreach ($request->getHeaders() as $name => $values) {
            $headers[(string) $name] = array_values(array_map(strval(...), $values));
        }
        $stream = $request->getBody();
        $size = $stream->getSize();
        if ($size !== null && $size <= self::INLINE_BODY) {
            if ($stream->isSeekable()) {
                $stream->rewind();
            }
            $body = $size === 0 ? null : $stream->getContents();
        } else {
            $body = RequestBody::fromIterable(static function () use ($stream): \Generator {
                if ($stream->isSeekable()) {
                    $stream->rewind();
                }
                while (!$stream->eof()) {
                    $piece = $stream->read(65_536);
                    if ($piece !== '') {
                        yield $piece;
                    }
                }
            }, $size);
        }
        try {
            $response = $this->client->request($request->getMethod(), (string) $request->getUri(), $headers, $body, $this->options)->await();
        } catch (NetworkFailure $e) {
            throw new NetworkException($request, $e->getMessage(), $e);
        } catch (\Throwable $e) {
            throw new RequestException($request, $e->getMessage(), $e);
        }
        $psr = $this->factory->createResponse($response->status(), $response->reason())
            ->withProtocolVersion($response->protocolVersion())
            ->withBody($this->factory->createStream($response->body()));
        foreach ($response->headers() as $name => $values) {
            $psr = $psr->withHeader($name, $values);
        }

        return $psr;
    }
}
