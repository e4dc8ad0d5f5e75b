<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Metrics;

use Nexus\Http\Application;
use Nexus\Http\Handler\HttpException;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Log\MemoryLogger;
use Nexus\Metrics\HttpServerMetrics;
use Nexus\Metrics\MeasuredHandler;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use PHPUnit\Framework\TestCase;
use Psr\Log\AbstractLogger;

/**
 * HttpServerMetrics::wrap() counts exactly what the middleware counts: every answer by route
 * template, method (_OTHER outside the registered ones) and status, a handler that throws as
 * 500, the requests being handled while they are.
 */
final class MeasuredHandlerTest extends TestCase
{
    public function testEveryAnswerCountsOnceByRouteMethodAndStatus(): void
    {
        $registry = new Registry();
        $metrics = new HttpServerMetrics($registry);
        $inner = new class ($metrics) implements RequestHandler {
            /** @var list<int> */
            public array $activeSeen = [];

            public function __construct(private readonly HttpServerMetrics $metrics) {}

            public function handle(Request $request): Response
            {
                $this->activeSeen[] = $this->metrics->active;
                $request->routeTemplate = str_starts_with($request->path(), '/users/') ? '/users/{id}' : null;
                if ($request->path() === '/boom') {
                    throw new \RuntimeException('boom');
                }

                return Response::text('ok', $request->path() === '/users/404' ? 404 : 200);
            }
        };
        $handler = $metrics->wrap($inner);

        foreach (['/users/1', '/users/2', '/users/3', '/users/404', '/nowhere'] as $path) {
            $handler->handle(new Request('GET', $path, $path, '', '1.1', []));
        }
        $handler->handle(new Request('BREW', '/users/7', '/users/7', '', '1.1', []));
        $handler->handle(new Request('SPLASH', '/users/8', '/users/8', '', '1.1', []));
        try {
            $handler->handle(new Request('POST', '/boom', '/boom', '', '1.1', []));
            self::fail('the exception passes on');
        } catch (\RuntimeException $e) {
            self::assertSame('boom', $e->getMessage());
        }

        self::assertSame([1, 1, 1, 1, 1, 1, 1, 1], $inner->activeSeen, 'one request in the handler at a time');
        self::assertSame(0, $metrics->active, 'none left once they are answered');
        $text = PrometheusText::render($registry->snapshot());
        foreach ([
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/users/{id}",http_response_status_code="200"} 3',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/users/{id}",http_response_status_code="404"} 1',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="",http_response_status_code="200"} 1',
            'http_server_request_duration_seconds_count{http_request_method="_OTHER",http_route="/users/{id}",http_response_status_code="200"} 2',
            'http_server_request_duration_seconds_count{http_request_method="POST",http_route="",http_response_status_code="500"} 1',
            'http_server_request_duration_seconds_bucket{http_request_method="GET",http_route="/users/{id}",http_response_status_code="200",le="+Inf"} 3',
            'http_server_active_requests 0',
        ] as $line) {
            self::assertStringContainsString("\n{$line}\n", $text);
        }
    }

    public function testAroundAnApplicationItAnswersAndCountsAsAroundAnyHandler(): void
    {
        $answers = [];
        $texts = [];
        foreach (['taken apart', 'as it is'] as $way) {
            $registry = new Registry();
            $metrics = new HttpServerMetrics($registry);
            $app = new Application(logger: new MemoryLogger());
            $app->get('/ok', static fn(): string => 'ok');
            $app->get('/missing/{id}', static fn(string $id): string => throw HttpException::notFound("No {$id}."));
            $app->get('/broken', static fn(): string => throw new \RuntimeException('broke'));
            $handler = $way === 'taken apart' ? $metrics->wrap($app->handler()) : new MeasuredHandler($metrics, $app->handler());
            foreach (['/ok', '/missing/7', '/broken', '/nowhere'] as $path) {
                $response = $handler->handle(new Request('GET', $path, $path, '', '1.1', ['host' => ['x']]));
                $answers[$way][] = [$response->status, $response->headers, $response->body];
            }
            self::assertSame(0, $metrics->active);
            $texts[$way] = PrometheusText::render($registry->snapshot());
        }

        self::assertSame($answers['as it is'], $answers['taken apart']);
        foreach ([
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/ok",http_response_status_code="200"} 1',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/missing/{id}",http_response_status_code="404"} 1',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/broken",http_response_status_code="500"} 1',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="",http_response_status_code="404"} 1',
        ] as $line) {
            self::assertStringContainsString("\n{$line}\n", $texts['taken apart']);
            self::assertStringContainsString("\n{$line}\n", $texts['as it is']);
        }
    }

    public function testAnErrorHandlerThatFailsTooIsCountedAs500AndPassesItsExceptionOn(): void
    {
        $registry = new Registry();
        $metrics = new HttpServerMetrics($registry);
        $app = new Application(logger: new class extends AbstractLogger {
            public function log($level, string|\Stringable $message, array $context = []): void
            {
                throw new \LogicException('the log is full');
            }
        });
        $app->get('/broken', static fn(): string => throw new \RuntimeException('broke'));
        $handler = $metrics->wrap($app->handler());
        try {
            $handler->handle(new Request('GET', '/broken', '/broken', '', '1.1', ['host' => ['x']]));
            self::fail('the error handler\'s exception passes on');
        } catch (\LogicException $e) {
            self::assertSame('the log is full', $e->getMessage());
        }

        self::assertSame(0, $metrics->active);
        self::assertStringContainsString(
            "\nhttp_server_request_duration_seconds_count{http_request_method=\"GET\",http_route=\"/broken\",http_response_status_code=\"500\"} 1\n",
            PrometheusText::render($registry->snapshot()),
        );
    }
}
