<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Redis;

use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisProtocolException;
use Nexus\Redis\Protocol\RespParser;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RespParserTest extends TestCase
{
    /**
     * @return iterable<string, array{string, mixed}>
     */
    public static function replies(): iterable
    {
        yield 'simple string' => ["+OK\r\n", 'OK'];
        yield 'empty simple string' => ["+\r\n", ''];
        yield 'integer' => [":1000\r\n", 1000];
        yield 'negative integer' => [":-42\r\n", -42];
        yield 'bulk string' => ["$5\r\nhello\r\n", 'hello'];
        yield 'bulk with CRLF inside' => ["$4\r\na\r\nb\r\n", "a\r\nb"];
        yield 'empty bulk' => ["$0\r\n\r\n", ''];
        yield 'nil bulk' => ["$-1\r\n", null];
        yield 'nil array' => ["*-1\r\n", null];
        yield 'empty array' => ["*0\r\n", []];
        yield 'array' => ["*3\r\n:1\r\n$3\r\nfoo\r\n$-1\r\n", [1, 'foo', null]];
        yield 'nested arrays' => ["*2\r\n*2\r\n:1\r\n*0\r\n*1\r\n*1\r\n+x\r\n", [[1, []], [['x']]]];
        yield 'binary bulk' => ["$3\r\n\0\xff\r\r\n", "\0\xff\r"];
    }

    #[DataProvider('replies')]
    public function testParsesEachReplyType(string $wire, mixed $expected): void
    {
        self::assertSame([$expected], (new RespParser())->feed($wire));
    }

    #[DataProvider('replies')]
    public function testParsesRepliesFedOneByteAtATime(string $wire, mixed $expected): void
    {
        $parser = new RespParser();
        $replies = [];
        for ($i = 0, $n = \strlen($wire); $i < $n; ++$i) {
            $got = $parser->feed($wire[$i]);
            if ($i < $n - 1) {
                self::assertSame([], $got, "no reply before the last byte (byte {$i})");
            }
            array_push($replies, ...$got);
        }
        self::assertSame([$expected], $replies);
        self::assertFalse($parser->isMidReply());
    }

    public function testEverySplitPointOfAPipelinedStreamGivesTheSameReplies(): void
    {
        $wire = "+OK\r\n:7\r\n$5\r\nhello\r\n*2\r\n$1\r\na\r\n*1\r\n:2\r\n-ERR bad thing\r\n$-1\r\n";
        $reference = (new RespParser())->feed($wire);
        self::assertCount(6, $reference);
        for ($split = 1; $split < \strlen($wire); ++$split) {
            $parser = new RespParser();
            $replies = [...$parser->feed(substr($wire, 0, $split)), ...$parser->feed(substr($wire, $split))];
            self::assertCount(6, $replies, "split at {$split}");
            self::assertSame(array_slice($reference, 0, 4), array_slice($replies, 0, 4), "split at {$split}");
            self::assertInstanceOf(RedisErrorException::class, $replies[4]);
            self::assertNull($replies[5]);
        }
    }

    public function testErrorReplyCarriesPrefixAndMessage(): void
    {
        $replies = (new RespParser())->feed("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
        $error = $replies[0];
        self::assertInstanceOf(RedisErrorException::class, $error);
        self::assertSame('WRONGTYPE', $error->prefix);
        self::assertSame('Operation against a key holding the wrong kind of value', $error->detail);
        self::assertStringContainsString('WRONGTYPE Operation', $error->getMessage());
    }

    public function testErrorInsideAnArrayStaysInItsSlot(): void
    {
        $replies = (new RespParser())->feed("*2\r\n+OK\r\n-ERR nope\r\n");
        self::assertIsArray($replies[0]);
        self::assertSame('OK', $replies[0][0]);
        self::assertInstanceOf(RedisErrorException::class, $replies[0][1]);
    }

    public function testLargeBulkInManyChunks(): void
    {
        $value = str_repeat('abcdefgh', 200_000);
        $wire = '$' . \strlen($value) . "\r\n" . $value . "\r\n:1\r\n";
        $parser = new RespParser();
        $replies = [];
        foreach (str_split($wire, 65_536) as $chunk) {
            array_push($replies, ...$parser->feed($chunk));
        }
        self::assertSame([$value, 1], $replies);
        self::assertSame(0, $parser->bufferedBytes());
    }

    public function testKeepsOnlyTheIncompleteTail(): void
    {
        $parser = new RespParser();
        self::assertSame(['a', 'b'], $parser->feed("+a\r\n+b\r\n$10\r\n01234"));
        self::assertTrue($parser->isMidReply());
        self::assertSame(10, $parser->bufferedBytes());
        self::assertSame(['0123456789'], $parser->feed("56789\r\n"));
        self::assertFalse($parser->isMidReply());
    }

    public function testRejectsBytesThatAreNotResp(): void
    {
        $this->expectException(RedisProtocolException::class);
        $this->expectExceptionMessage('0x48');
        (new RespParser())->feed("HTTP/1.1 400 Bad Request\r\n");
    }
}
