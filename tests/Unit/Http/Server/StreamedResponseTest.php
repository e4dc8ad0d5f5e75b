<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Server;

use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use Nexus\Http\Server\ResponseStream;
use PHPUnit\Framework\TestCase;

final class StreamedResponseTest extends TestCase
{
    public function testStreamKeepsItsProducerThroughHeaderAndStatusChanges(): void
    {
        $producer = static function (ResponseStream $out): void {
            $out->write('x');
        };
        $response = Response::stream(200, ['Content-Type' => 'text/csv'], $producer)
            ->withHeader('X-Id', '7')
            ->withStatus(201);

        self::assertTrue($response->isStream());
        self::assertSame($producer, $response->producer);
        self::assertSame(201, $response->status);
        self::assertSame('text/csv', $response->header('content-type'));
        self::assertSame('', $response->body);
    }

    public function testWithBodyTurnsAStreamIntoAPlainResponse(): void
    {
        $response = Response::stream(200, [], static function (): void {})->withBody('fixed');

        self::assertFalse($response->isStream());
        self::assertSame('fixed', $response->body);
        self::assertFalse(Response::text('plain')->isStream());
    }

    public function testABodyAndAProducerTogetherAreRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('streamed response has no fixed body');
        new Response(200, [], 'body', static function (): void {});
    }

    public function testTheSerializerFramesAStreamHeadAsChunked(): void
    {
        $head = ResponseSerializer::serialize(Response::stream(200, [], static function (): void {}), true, 'D', chunked: true);

        self::assertSame("HTTP/1.1 200 OK\r\nDate: D\r\nTransfer-Encoding: chunked\r\n\r\n", $head);
    }
}
