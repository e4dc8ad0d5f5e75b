<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Bench;

use Nexus\Bench\Db\HttpResponseReader;
use PHPUnit\Framework\TestCase;

final class HttpResponseReaderTest extends TestCase
{
    public function testContentLengthResponsesSplitAcrossChunks(): void
    {
        $reader = new HttpResponseReader();
        $bytes = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" . "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 2\r\nConnection: close\r\n\r\nno";
        $responses = [];
        foreach (str_split($bytes, 7) as $chunk) {
            array_push($responses, ...$reader->feed($chunk));
        }

        self::assertCount(2, $responses);
        self::assertSame([200, 'hello', false], [$responses[0]->status, $responses[0]->body, $responses[0]->close]);
        self::assertSame([500, 'no', true], [$responses[1]->status, $responses[1]->body, $responses[1]->close]);
    }

    public function testChunkedBody(): void
    {
        $reader = new HttpResponseReader();
        $bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
        $responses = [];
        foreach (str_split($bytes, 3) as $chunk) {
            array_push($responses, ...$reader->feed($chunk));
        }

        self::assertCount(2, $responses);
        self::assertSame('Wikipedia', $responses[0]->body);
        self::assertSame(204, $responses[1]->status);
    }

    public function testGarbageIsRejected(): void
    {
        $this->expectException(\UnexpectedValueException::class);
        (new HttpResponseReader())->feed("SSH-2.0-OpenSSH\r\n\r\n");
    }
}
