<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Middleware;

use Nexus\Http\Middleware\AccessLog;
use Nexus\Http\Middleware\Pipeline;
use Nexus\Http\Middleware\RequestId;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Log\MemoryLogger;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\TestCase;
use Psr\Log\LogLevel;

final class AccessLogTest extends TestCase
{
    public function testLogsOneLinePerRequest(): void
    {
        $logger = new MemoryLogger();
        $pipeline = Pipeline::wrap([new RequestId(), new AccessLog($logger)], Handlers::of(static fn(Request $r): Response => Response::text('x', 201)));

        $pipeline->handle(Requests::make('POST', '/orders', ['X-Request-Id' => 'r1']));

        self::assertCount(1, $logger->records);
        $record = $logger->records[0];
        self::assertSame(LogLevel::INFO, $record['level']);
        self::assertMatchesRegularExpression('~^POST /orders 201 [0-9.]+ms$~', $record['message']);
        self::assertSame(['POST', '/orders', 201, 'r1'], [$record['context']['method'], $record['context']['path'], $record['context']['status'], $record['context']['request_id']]);
        self::assertIsFloat($record['context']['duration_ms']);
    }

    public function testLogsA500AndRethrowsWhenTheHandlerThrows(): void
    {
        $logger = new MemoryLogger();
        $error = new \RuntimeException('boom');

        try {
            (new AccessLog($logger, LogLevel::DEBUG))->process(Requests::make('GET', '/x'), Handlers::throwing($error));
            self::fail('expected the exception');
        } catch (\RuntimeException $e) {
            self::assertSame($error, $e);
        }
        self::assertSame(LogLevel::DEBUG, $logger->records[0]['level']);
        self::assertSame(500, $logger->records[0]['context']['status']);
        self::assertNull($logger->records[0]['context']['request_id']);
    }
}
