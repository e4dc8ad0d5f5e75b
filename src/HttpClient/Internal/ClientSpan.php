<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\ClientMetrics;
use Nexus\Trace\Span;
use Nexus\Trace\SpanKind;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracer;

/**
 * The CLIENT span of an outgoing request sent from traced work, as OpenTelemetry's HTTP
 * conventions describe it: named by the method (`GET`; `HTTP` for a method outside the known
 * ones), with http.request.method (and http.request.method_original for _OTHER), url.full (no
 * credentials: the client refuses them in URLs; the values of the query parameters the
 * conventions name as signatures are replaced by REDACTED), server.address, server.port,
 * network.protocol.version, then http.response.status_code; a 4xx or 5xx sets error.type to the
 * code and marks the span failed, a failure sets error.type to the exception's class.
 *
 * The request carries the span's context on: `traceparent` (and `tracestate` when the trace has
 * one) replace whatever the caller set under those names.
 *
 * @internal used by HttpClient and Exchange
 */
final class ClientSpan
{
    /** Query parameters whose values the conventions ask to redact in url.full. */
    private const SECRET_PARAMETERS = ['awsaccesskeyid' => true, 'signature' => true, 'sig' => true, 'x-goog-signature' => true];

    private function __construct() {}

    /**
     * Starts the span of a request to $target and adds its context to $headers.
     *
     * @param array<array-key, string|list<string>> $headers
     */
    public static function start(Tracer $tracer, TraceContext $parent, string $method, Target $target, array &$headers): Span
    {
        $known = ClientMetrics::method($method);
        $attributes = [
            'http.request.method' => $known,
            'url.full' => self::redacted($target),
            'server.address' => $target->host,
            'server.port' => $target->port,
            'network.protocol.version' => '1.1',
        ];
        if ($known !== $method) {
            $attributes['http.request.method_original'] = $method;
        }
        $span = $tracer->startSpan($known === '_OTHER' ? 'HTTP' : $known, SpanKind::Client, $parent, $attributes);
        foreach (array_keys($headers) as $name) {
            $lower = strtolower((string) $name);
            if ($lower === 'traceparent' || $lower === 'tracestate') {
                unset($headers[$name]);
            }
        }
        $context = $span->context();
        $headers['traceparent'] = $context->traceparent();
        if ($context->traceState !== '') {
            $headers['tracestate'] = $context->traceState;
        }

        return $span;
    }

    /**
     * Ends the span with the response's status (0 when there was none) or the failure.
     */
    public static function end(Span $span, int $status, ?\Throwable $error): void
    {
        if ($error !== null) {
            $span->setAttribute('error.type', $error::class);
            $span->fail($error);
        } else {
            $span->setAttribute('http.response.status_code', $status);
            if ($status >= 400) {
                $span->setAttribute('error.type', (string) $status);
                $span->failWith("HTTP {$status}");
            }
        }
        $span->end();
    }

    /**
     * The URL with the values of signature parameters replaced by REDACTED.
     */
    public static function redacted(Target $target): string
    {
        $url = $target->url;
        $query = strpos($url, '?');
        if ($query === false) {
            return $url;
        }
        $fragment = strpos($url, '#', $query);
        $parameters = explode('&', substr($url, $query + 1, $fragment === false ? null : $fragment - $query - 1));
        $changed = false;
        foreach ($parameters as $i => $parameter) {
            $equals = strpos($parameter, '=');
            if ($equals !== false && isset(self::SECRET_PARAMETERS[strtolower(rawurldecode(substr($parameter, 0, $equals)))])) {
                $parameters[$i] = substr($parameter, 0, $equals + 1) . 'REDACTED';
                $changed = true;
            }
        }
        if (!$changed) {
            return $url;
        }

        return substr($url, 0, $query + 1) . implode('&', $parameters) . ($fragment === false ? '' : substr($url, $fragment));
    }
}
