<?php

declare(strict_types=1);

namespace Nexus\Http\Psr;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nyholm\Psr7\Response as PsrResponse;
use Nyholm\Psr7\ServerRequest;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/** Converts between Nexus messages and PSR-7 messages (nyholm/psr7). Bodies are copied as strings. */
final class PsrConverter
{
    /** The request's attributes become PSR-7 attributes, its query string the query params. */
    public static function toPsrRequest(Request $request): ServerRequestInterface
    {
        $target = $request->target();
        $host = $request->header('host') ?? 'localhost';
        $uri = str_starts_with($target, '/') ? 'http://' . $host . $target : ($target === '*' ? 'http://' . $host : $target);
        try {
            $psr = new ServerRequest($request->method(), $uri, $request->headers(), $request->body(), $request->protocolVersion());
        } catch (\InvalidArgumentException) {
            // An unusable Host header: keep the path and query at least.
            $query = $request->query();
            $psr = new ServerRequest($request->method(), $request->path() . ($query === '' ? '' : '?' . $query), $request->headers(), $request->body(), $request->protocolVersion());
        }
        $psr = $psr->withQueryParams($request->queryParams());
        foreach ($request->attributes as $name => $value) {
            $psr = $psr->withAttribute($name, $value);
        }

        return $psr;
    }

    public static function fromPsrRequest(ServerRequestInterface $psr): Request
    {
        $uri = $psr->getUri();
        $headers = [];
        foreach ($psr->getHeaders() as $name => $values) {
            $headers[strtolower((string) $name)] = array_values($values);
        }
        $request = new Request(
            $psr->getMethod(),
            $psr->getRequestTarget(),
            $uri->getPath() === '' ? '/' : $uri->getPath(),
            $uri->getQuery(),
            $psr->getProtocolVersion(),
            $headers,
            (string) $psr->getBody(),
        );
        foreach ($psr->getAttributes() as $name => $value) {
            $request->attributes[(string) $name] = $value;
        }

        return $request;
    }

    public static function toPsrResponse(Response $response): ResponseInterface
    {
        return new PsrResponse($response->status, $response->headers, $response->body);
    }

    public static function fromPsrResponse(ResponseInterface $psr): Response
    {
        $headers = [];
        foreach ($psr->getHeaders() as $name => $values) {
            $headers[(string) $name] = array_values($values);
        }

        return new Response($psr->getStatusCode(), $headers, (string) $psr->getBody());
    }
}
