<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\InvalidRequestException;
use Nexus\HttpClient\Exception\TooManyRedirectsException;
use Nexus\HttpClient\Internal\ClientSpan;
use Nexus\HttpClient\Internal\Dispatcher;
use Nexus\HttpClient\Internal\Exchange;
use Nexus\HttpClient\Internal\Settings;
use Nexus\HttpClient\Internal\Target;
use Nexus\Pool\TaskCancellation;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Trace\Tracing;

/**
 * An HTTP/1.1 client on the loop: request() returns a Future of the response, which a handler or
 * an actor awaits without blocking the worker (its fiber waits, the others run), and top-level
 * code awaits by running the loop.
 *
 *     $client = new HttpClient($loop);
 *     $response = $client->get('http://127.0.0.1:8080/hello')->await();
 *     echo $response->status(), ' ', $response->body();
 *
 * Connections are kept alive and reused, in one pool per origin (scheme://host:port) under a
 * total cap; a connection the server closed or that broke is never handed out again. Every
 * request is bounded by the timeouts, size caps and limits of ClientOptions (with per-request
 * overrides in RequestOptions), and every failure is an exception implementing
 * Exception\HttpClientException that names what happened; a request that fails leaves its
 * connection closed, never in the pool.
 *
 * The cancellation a handler runs under (Scheduler::setCancellation(), an HTTP handler's time
 * limit) also cancels its requests, as a Cancellation passed to request() does: the request's
 * connection is closed and its future fails with the CancelledException.
 *
 * Observability (ClientOptions::$instrumented, on by default): every request adds its duration
 * to ClientMetrics (http.client.request.duration); one sent from traced work (Scheduler::$trace
 * with Tracing::$tracer installed) is a CLIENT span of that work and carries the trace on in
 * `traceparent` (and `tracestate`), each redirect hop a span of its own. With tracing off that
 * costs one null check per request.
 */
final class HttpClient
{
    private const MAX_NAMES = 256;
    private const REDIRECTS = [301 => true, 302 => true, 303 => true, 307 => true, 308 => true];
    private const BODYLESS = ['GET' => true, 'HEAD' => true, 'DELETE' => true, 'OPTIONS' => true, 'TRACE' => true];

    /** @var array<string, string> valid header names and methods seen, each to its lower-case form */
    private static array $names = [];

    private readonly Dispatcher $dispatcher;
    private readonly Settings $defaults;
    /** Default headers every request carries unless it sets them itself. */
    private readonly string $userAgentLine;

    public function __construct(
        private readonly Loop $loop,
        private readonly ClientOptions $options = new ClientOptions(),
    ) {
        $this->dispatcher = new Dispatcher($loop, $options, $options->resolver ?? new SystemResolver($loop));
        $this->defaults = Settings::of($options);
        $this->userAgentLine = "User-Agent: {$options->userAgent}\r\n";
    }

    /**
     * Sends a request. $headers: name => value or list of values (Host, User-Agent and
     * Accept-Encoding are added unless given; Content-Length or Transfer-Encoding always come from
     * the body). $body: a string, a RequestBody (streamed), or null for none.
     *
     * The future fails with an Exception\HttpClientException (InvalidRequestException at once for
     * a bad URL or header), a Nexus\Pool\Exception\PoolTimeoutException when no connection to the
     * origin became free within acquireTimeout, or the CancelledException of a cancellation.
     *
     * @param array<string, string|list<string>> $headers
     *
     * @return Future<ClientResponse>
     */
    public function request(
        string $method,
        string $url,
        array $headers = [],
        string|RequestBody|null $body = null,
        ?RequestOptions $options = null,
        ?Cancellation $cancellation = null,
    ): Future {
        try {
            $target = Target::of($url);
            $settings = $options === null ? $this->defaults : Settings::of($this->options, $options);
            $method = $this->method($method);
        } catch (InvalidRequestException $e) {
            return Future::rejected($this->loop, $e);
        }
        $cancellation = TaskCancellation::of($this->loop, $cancellation);
        if ($settings->maxRedirects === 0) {
            return $this->send($method, $target, $headers, $body, $settings, $cancellation);
        }
        /** @var Deferred<ClientResponse> $deferred */
        $deferred = new Deferred($this->loop);
        $this->follow($deferred, $method, $target, $headers, $body, $settings, $cancellation, $settings->maxRedirects);

        return $deferred->future();
    }

    /**
     * @param array<string, string|list<string>> $headers
     *
     * @return Future<ClientResponse>
     */
    public function get(string $url, array $headers = [], ?RequestOptions $options = null, ?Cancellation $cancellation = null): Future
    {
        return $this->request('GET', $url, $headers, null, $options, $cancellation);
    }

    /**
     * @param array<string, string|list<string>> $headers
     *
     * @return Future<ClientResponse>
     */
    public function post(string $url, string|RequestBody $body, array $headers = [], ?RequestOptions $options = null, ?Cancellation $cancellation = null): Future
    {
        return $this->request('POST', $url, $headers, $body, $options, $cancellation);
    }

    /**
     * Sends $data as a JSON body (none when null) with Content-Type and Accept set to
     * application/json; read the answer with ClientResponse::json().
     *
     * @param array<string, string|list<string>> $headers
     *
     * @return Future<ClientResponse>
     *
     * @throws \JsonException when $data cannot be encoded
     */
    public function json(string $method, string $url, mixed $data = null, array $headers = [], ?RequestOptions $options = null, ?Cancellation $cancellation = null): Future
    {
        $headers += ['Accept' => 'application/json'];
        $body = null;
        if ($data !== null) {
            $body = json_encode($data, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE | \JSON_PRESERVE_ZERO_FRACTION);
            $headers += ['Content-Type' => 'application/json'];
        }

        return $this->request($method, $url, $headers, $body, $options, $cancellation);
    }

    /**
     * Fails the requests in flight with ClientClosedException and closes every connection.
     */
    public function close(): void
    {
        $this->dispatcher->close();
    }

    /**
     * Connections open or being opened, over all origins.
     */
    public function connectionCount(): int
    {
        return $this->dispatcher->pools->size();
    }

    /**
     * Idle kept-alive connections to the origin of $url.
     */
    public function idleConnectionCount(string $url): int
    {
        $origin = Target::of($url)->origin;

        return \in_array($origin, $this->dispatcher->pools->keys(), true) ? $this->dispatcher->pools->pool($origin)->idleCount() : 0;
    }

    /**
     * Requests sent and not yet complete (a streamed response counts until its body has ended).
     */
    public function inFlight(): int
    {
        return $this->dispatcher->inFlight();
    }

    /**
     * @param array<array-key, string|list<string>> $headers
     *
     * @return Future<ClientResponse>
     */
    private function send(string $method, Target $target, array $headers, string|RequestBody|null $body, Settings $settings, ?Cancellation $cancellation): Future
    {
        $span = null;
        if ($this->options->instrumented && Tracing::$tracer !== null) {
            $trace = $this->loop->scheduler()->trace;
            if ($trace !== null) {
                $span = ClientSpan::start(Tracing::$tracer, $trace, $method, $target, $headers);
            }
        }
        try {
            $bytes = $this->head($method, $target, $headers, $body, $settings);
        } catch (InvalidRequestException $e) {
            if ($span !== null) {
                ClientSpan::end($span, 0, $e);
            }

            return Future::rejected($this->loop, $e);
        }
        if (\is_string($body)) {
            $bytes .= $body;
        }
        /** @var Deferred<ClientResponse> $deferred */
        $deferred = new Deferred($this->loop);
        $exchange = new Exchange(
            $this->dispatcher->nextId(),
            $this->dispatcher,
            $this->loop,
            $method,
            $target,
            $bytes,
            $body instanceof RequestBody ? $body : null,
            $settings,
            $cancellation,
            $deferred,
            $span,
        );
        $this->dispatcher->send($exchange);

        return $deferred->future();
    }

    /**
     * @param Deferred<ClientResponse>              $deferred
     * @param array<array-key, string|list<string>> $headers
     */
    private function follow(Deferred $deferred, string $method, Target $target, array $headers, string|RequestBody|null $body, Settings $settings, ?Cancellation $cancellation, int $left): void
    {
        $this->send($method, $target, $headers, $body, $settings, $cancellation)->onSettle(
            function (?\Throwable $error, mixed $response) use ($deferred, $method, $target, $headers, $body, $settings, $cancellation, $left): void {
                if ($error !== null) {
                    $deferred->reject($error);

                    return;
                }
                \assert($response instanceof ClientResponse);
                $location = $response->header('location');
                $status = $response->status();
                if (!isset(self::REDIRECTS[$status]) || $location === null || $location === '') {
                    $deferred->resolve($response);

                    return;
                }
                $keepsBody = $status === 307 || $status === 308;
                if (!$keepsBody && ($status === 303 || $method === 'POST')) {
                    $method = $method === 'HEAD' ? 'HEAD' : 'GET';
                    $body = null;
                    $headers = self::without($headers, ['content-type', 'content-length', 'transfer-encoding']);
                }
                if ($body instanceof RequestBody && !$body->replayable) {
                    $deferred->resolve($response); // the body cannot be sent again: the caller decides

                    return;
                }
                if ($response->isStreamed()) {
                    $response->stream()->close();
                }
                if ($left === 0) {
                    $deferred->reject(new TooManyRedirectsException(\sprintf('%s %s was redirected more than %d times (maxRedirects): a redirect loop? The last Location was %s.', $method, $target->url, $settings->maxRedirects, $location)));

                    return;
                }
                try {
                    $next = $target->resolve($location);
                } catch (InvalidRequestException $e) {
                    $deferred->reject($e);

                    return;
                }
                if ($next->origin !== $target->origin) {
                    // Credentials and the Host are for the origin they were given for, not the next one.
                    $headers = self::without($headers, ['authorization', 'cookie', 'proxy-authorization', 'host']);
                }
                $this->follow($deferred, $method, $next, $headers, $body, $settings, $cancellation, $left - 1);
            },
        );
    }

    /**
     * @param array<array-key, string|list<string>> $headers
     * @param list<string>                          $names   lower case
     *
     * @return array<array-key, string|list<string>>
     */
    private static function without(array $headers, array $names): array
    {
        foreach (array_keys($headers) as $name) {
            if (\in_array(strtolower((string) $name), $names, true)) {
                unset($headers[$name]);
            }
        }

        return $headers;
    }

    /**
     * Builds the request head; a streamed $body of unknown length given a Content-Length header is
     * replaced by one of that length.
     *
     * @param array<array-key, string|list<string>> $headers
     */
    private function head(string $method, Target $target, array $headers, string|RequestBody|null &$body, Settings $settings): string
    {
        $head = "{$method} {$target->requestTarget} HTTP/1.1\r\n";
        $host = $userAgent = $acceptEncoding = false;
        $lines = '';
        $declaredLength = null;
        foreach ($headers as $name => $values) {
            $name = (string) $name;
            $lower = self::$names[$name] ?? self::token($name, 'header name');
            switch ($lower) {
                case 'host':
                    $host = true;

                    break;

                case 'user-agent':
                    $userAgent = true;

                    break;

                case 'accept-encoding':
                    $acceptEncoding = true;

                    break;

                case 'content-length':
                    $declaredLength = \is_array($values) ? implode(',', $values) : $values;

                    continue 2;

                case 'transfer-encoding':
                    continue 2; // framing comes from the body
            }
            foreach (\is_array($values) ? $values : [$values] as $value) {
                if (strpbrk($value, "\r\n\0") !== false) {
                    throw new InvalidRequestException("The value of header '{$name}' contains a line break or NUL: it would inject headers. Remove them (or encode the value).");
                }
                $lines .= "{$name}: {$value}\r\n";
            }
        }
        if (!$host) {
            $head .= "Host: {$target->hostHeader}\r\n";
        }
        $head .= $lines;
        if (!$userAgent) {
            $head .= $this->userAgentLine;
        }
        if (!$acceptEncoding && $settings->decompress) {
            $head .= "Accept-Encoding: gzip, deflate\r\n";
        }
        if (\is_string($body)) {
            $length = \strlen($body);
            if ($declaredLength !== null && trim($declaredLength) !== (string) $length) {
                throw new InvalidRequestException("The Content-Length header says {$declaredLength} but the body has {$length} bytes: leave Content-Length out, the client sets it.");
            }
            if ($length > 0 || !isset(self::BODYLESS[$method])) {
                $head .= "Content-Length: {$length}\r\n";
            }
        } elseif ($body instanceof RequestBody) {
            $length = $body->length;
            if ($length === null && $declaredLength !== null) {
                if (!ctype_digit(trim($declaredLength))) {
                    throw new InvalidRequestException("Invalid Content-Length header '{$declaredLength}'.");
                }
                $body = $body->withLength((int) trim($declaredLength));
                $length = $body->length;
            }
            $head .= $length === null ? "Transfer-Encoding: chunked\r\n" : "Content-Length: {$length}\r\n";
        } elseif ($declaredLength !== null && trim($declaredLength) !== '0') {
            throw new InvalidRequestException("A Content-Length of {$declaredLength} was given without a body.");
        }

        return $head . "\r\n";
    }

    private function method(string $method): string
    {
        if (!isset(self::$names[$method])) {
            self::token($method, 'method');
        }

        return $method;
    }

    private static function token(string $name, string $what): string
    {
        if ($name === '' || strspn($name, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !== \strlen($name)) {
            throw new InvalidRequestException(\sprintf("Invalid %s '%s': it must be a token (letters, digits and !#$%%&'*+-.^_`|~, no spaces or colons).", $what, addcslashes($name, "\0..\37\177..\377")));
        }
        if (\count(self::$names) >= self::MAX_NAMES) {
            self::$names = [];
        }

        return self::$names[$name] = strtolower($name);
    }
}
