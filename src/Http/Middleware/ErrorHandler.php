<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Handler\HttpException;
use Nexus\Http\Handler\Problem;
use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Runtime\Exception\TransientException;
use Psr\Log\LoggerInterface;
use Psr\Log\NullLogger;

/**
 * Turns exceptions into `application/problem+json` responses (RFC 9457). An HttpException keeps
 * its status, detail, headers and extensions. A TransientException (a database or worker that
 * could not be reached, a pool with no connection free, a timeout) is logged as a warning and
 * becomes a 503 with `Retry-After: 1`: the client may try again. Anything else is logged and
 * becomes a 500 whose detail is generic in production; in debug mode both carry the class,
 * message and trace.
 */
final readonly class ErrorHandler implements Middleware
{
    private LoggerInterface $logger;

    public function __construct(
        private bool $debug = false,
        ?LoggerInterface $logger = null,
    ) {
        $this->logger = $logger ?? new NullLogger();
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        try {
            return $next->handle($request);
        } catch (\Throwable $e) {
            return $this->recover($request, $e);
        }
    }

    /**
     * $handler with this error handling around it, as a handler: what process() does, without a
     * middleware layer (Next) in between.
     */
    public function around(RequestHandler $handler): RequestHandler
    {
        return new ErrorHandled($this, $handler);
    }

    /**
     * The answer to a request whose handler threw $e (see the class comment).
     */
    public function recover(Request $request, \Throwable $e): Response
    {
        if ($e instanceof HttpException) {
            if ($e->status >= 500) {
                $this->report($request, $e);
            }

            return Problem::response($e->status, $e->getMessage(), $request->path(), $e->extensions, $e->headers);
        }
        if ($e instanceof TransientException) {
            $this->report($request, $e, 'warning');

            return $this->problem($request, $e, 503, 'A service this request needs is unavailable right now; try again shortly.', ['Retry-After' => '1']);
        }
        $this->report($request, $e);

        return $this->problem($request, $e, 500, 'The server failed to handle this request.');
    }

    /**
     * @param array<string, string> $headers
     */
    private function problem(Request $request, \Throwable $e, int $status, string $detail, array $headers = []): Response
    {
        if (!$this->debug) {
            return Problem::response($status, $detail, $request->path(), self::requestId($request), $headers);
        }

        return Problem::response($status, $e->getMessage(), $request->path(), self::requestId($request) + ['exception' => [
            'class' => $e::class,
            'message' => $e->getMessage(),
            'file' => $e->getFile() . ':' . $e->getLine(),
            'trace' => explode("\n", $e->getTraceAsString()),
        ]], $headers);
    }

    private function report(Request $request, \Throwable $e, string $level = 'error'): void
    {
        $this->logger->log($level, '{method} {path} failed: {class}: {message}', [
            'method' => $request->method(),
            'path' => $request->path(),
            'class' => $e::class,
            'message' => $e->getMessage(),
            'exception' => $e,
        ] + self::requestId($request));
    }

    /** @return array<string, mixed> */
    private static function requestId(Request $request): array
    {
        $id = $request->attributes[RequestId::ATTRIBUTE] ?? null;

        return $id === null ? [] : ['request_id' => $id];
    }
}
