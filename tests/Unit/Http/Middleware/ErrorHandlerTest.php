<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Middleware;

use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Http\Handler\HttpException;
use Nexus\Http\Middleware\ErrorHandler;
use Nexus\Log\MemoryLogger;
use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ErrorHandlerTest extends TestCase
{
    /** @return iterable<string, array{HttpException, int, string}> */
    public static function httpErrors(): iterable
    {
        yield 'bad request' => [HttpException::badRequest('Fix the thing.'), 400, 'Bad Request'];
        yield 'not found' => [HttpException::notFound('No order 7.'), 404, 'Not Found'];
        yield 'teapot-ish custom' => [new HttpException(429, 'Slow down.', ['Retry-After' => '5']), 429, 'Too Many Requests'];
        yield 'subclass' => [new OrderLocked('Order 7 is locked.'), 423, 'Locked'];
    }

    #[DataProvider('httpErrors')]
    public function testHttpExceptionsKeepTheirStatusAndDetail(HttpException $error, int $status, string $title): void
    {
        $logger = new MemoryLogger();
        $response = (new ErrorHandler(false, $logger))->process(Requests::make('GET', '/orders/7'), Handlers::throwing($error));

        self::assertSame($status, $response->status);
        self::assertSame('application/problem+json', $response->header('Content-Type'));
        self::assertSame(
            ['type' => 'about:blank', 'title' => $title, 'status' => $status, 'detail' => $error->getMessage(), 'instance' => '/orders/7'],
            Requests::json($response),
        );
        foreach ($error->headers as $name => $value) {
            self::assertSame($value, $response->header($name));
        }
        self::assertSame([], $logger->records, 'client errors are not logged');
    }

    public function testATransientFailureIsA503TheClientMayRetry(): void
    {
        $logger = new MemoryLogger();
        $response = (new ErrorHandler(false, $logger))->process(
            Requests::make('POST', '/orders'),
            Handlers::throwing(new PgConnectionException('PostgreSQL at 10.0.0.5:5432 refused the connection (password hunter2)')),
        );

        self::assertSame(503, $response->status);
        self::assertSame('1', $response->header('Retry-After'));
        self::assertSame('A service this request needs is unavailable right now; try again shortly.', Requests::json($response)['detail']);
        self::assertStringNotContainsString('hunter2', $response->body);
        self::assertCount(1, $logger->records);
        self::assertSame('warning', $logger->records[0]['level']);
    }

    public function testTimeoutsArePassingFailuresToo(): void
    {
        $response = (new ErrorHandler())->process(Requests::make('GET', '/slow'), Handlers::throwing(new AskTimeoutException('No reply within 5 s.')));

        self::assertSame(503, $response->status);
    }

    public function testExtensionsAreAddedToTheProblem(): void
    {
        $response = (new ErrorHandler())->process(Requests::make('POST', '/u'), Handlers::throwing(HttpException::unprocessable('Invalid.', ['"a" is required'])));

        self::assertSame(['"a" is required'], Requests::json($response)['errors']);
    }

    public function testProductionHidesTheExceptionButLogsIt(): void
    {
        $logger = new MemoryLogger();
        $request = Requests::make('GET', '/x');
        $request->attributes['request_id'] = 'r-9';
        $response = (new ErrorHandler(false, $logger))->process($request, Handlers::throwing(new \RuntimeException('db password is hunter2')));

        self::assertSame(500, $response->status);
        self::assertStringNotContainsString('hunter2', $response->body);
        self::assertSame('The server failed to handle this request.', Requests::json($response)['detail']);
        self::assertSame('r-9', Requests::json($response)['request_id']);
        self::assertCount(1, $logger->records);
        self::assertSame('error', $logger->records[0]['level']);
        self::assertSame('db password is hunter2', $logger->records[0]['context']['message']);
    }

    public function testDevelopmentShowsClassMessageAndTrace(): void
    {
        $response = (new ErrorHandler(true))->process(Requests::make('GET', '/x'), Handlers::throwing(new \DomainException('exploded')));
        $problem = Requests::json($response);

        self::assertSame(500, $response->status);
        self::assertSame('exploded', $problem['detail']);
        self::assertIsArray($problem['exception']);
        self::assertSame('DomainException', $problem['exception']['class']);
        self::assertSame('exploded', $problem['exception']['message']);
        self::assertIsArray($problem['exception']['trace']);
        self::assertNotEmpty($problem['exception']['trace']);
    }

    public function testServerSideHttpExceptionsAreLogged(): void
    {
        $logger = new MemoryLogger();
        $response = (new ErrorHandler(false, $logger))->process(Requests::make('GET', '/'), Handlers::throwing(new HttpException(503, 'Maintenance.')));

        self::assertSame(503, $response->status);
        self::assertSame('Maintenance.', Requests::json($response)['detail']);
        self::assertCount(1, $logger->records);
    }

    public function testPassesResponsesThrough(): void
    {
        self::assertSame('ok', (new ErrorHandler())->process(Requests::make('GET', '/'), Handlers::ok())->body);
    }

    public function testAroundAHandlerItAnswersAsTheMiddlewareDoes(): void
    {
        $errors = [
            HttpException::notFound('No order 7.'),
            new HttpException(503, 'Maintenance.'),
            new PgConnectionException('refused'),
            new \RuntimeException('broke'),
        ];
        foreach ($errors as $error) {
            $middlewareLog = new MemoryLogger();
            $aroundLog = new MemoryLogger();
            $expected = (new ErrorHandler(false, $middlewareLog))->process(Requests::make('GET', '/orders/7'), Handlers::throwing($error));
            $actual = (new ErrorHandler(false, $aroundLog))->around(Handlers::throwing($error))->handle(Requests::make('GET', '/orders/7'));

            self::assertSame([$expected->status, $expected->headers, $expected->body], [$actual->status, $actual->headers, $actual->body], $error::class);
            self::assertSame(array_column($middlewareLog->records, 'level'), array_column($aroundLog->records, 'level'));
        }
        self::assertSame('ok', (new ErrorHandler())->around(Handlers::ok())->handle(Requests::make('GET', '/'))->body);
    }

    public function testHttpExceptionNeedsAnErrorStatus(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('must be a 4xx or 5xx code, got 302');
        new HttpException(302);
    }
}

final class OrderLocked extends HttpException
{
    public function __construct(string $detail)
    {
        parent::__construct(423, $detail);
    }
}
