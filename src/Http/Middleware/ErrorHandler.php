<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Handler\HttpException;
use Nexus\Http\Handler\Problem;
use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Psr\Log\LoggerInterface;
use Psr\Log\NullLogger;

/**
 * Turns exceptions into `application/problem+json` responses (RFC 9457). An HttpException keeps
 * its status, detail, headers and extensions. Anything else is logged and becomes a 500 whose
 * detail is generic in production; in debug mode it carries the class, message and trace.
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
        } catch (HttpException $e) {
            if ($e->status >= 500) {
                $this->report($request, $e);
            }

            return Problem::response($e->status, $e->getMessage(), $request->path(), $e->extensions, $e->headers);
        } catch (\Throwable $e) {
            $this->report($request, $e);
            if (!$this->debug) {
                return Problem::response(500, 'The server failed to handle this request.', $request->path(), self::requestId($request));
            }

            return Problem::response(500, $e->getMessage(), $request->path(), self::requestId($request) + ['exception' => [
                'class' => $e::class,
                'message' => $e->getMessage(),
                'file' => $e->getFile() . ':' . $e->getLine(),
                'trace' => explode("\n", $e->getTraceAsString()),
            ]]);
        }
    }

    private function report(Request $request, \Throwable $e): void
    {
        $this->logger->error('{method} {path} failed: {class}: {message}', [
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
