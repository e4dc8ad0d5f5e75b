<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Psr\Log\LoggerInterface;
use Psr\Log\LogLevel;

/**
 * Logs one line per request through PSR-3: method, path, status, duration and request id. It only
 * calls the logger; a logger that must not block the loop has to buffer on its own.
 * A request that throws is logged with status 500 and the exception is rethrown.
 */
final readonly class AccessLog implements Middleware
{
    public function __construct(
        private LoggerInterface $logger,
        private string $level = LogLevel::INFO,
    ) {}

    public function process(Request $request, RequestHandler $next): Response
    {
        $start = hrtime(true);
        try {
            $response = $next->handle($request);
        } catch (\Throwable $e) {
            $this->log($request, 500, $start);

            throw $e;
        }
        $this->log($request, $response->status, $start);

        return $response;
    }

    private function log(Request $request, int $status, int|float $start): void
    {
        $context = [
            'method' => $request->method(),
            'path' => $request->path(),
            'status' => $status,
            'duration_ms' => round((hrtime(true) - $start) / 1e6, 3),
            'request_id' => $request->attributes[RequestId::ATTRIBUTE] ?? null,
        ];
        $this->logger->log($this->level, '{method} {path} {status} {duration_ms}ms', $context);
    }
}
