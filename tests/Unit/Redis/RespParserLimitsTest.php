<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Redis;

use Nexus\Redis\Exception\RedisProtocolException;
use Nexus\Redis\Exception\RedisReplyLimitException;
use Nexus\Redis\Protocol\RespLimit;
use Nexus\Redis\Protocol\RespParser;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The parser refuses a hostile reply as soon as its header says so, before buffering it.
 */
final class RespParserLimitsTest extends TestCase
{
    public function testAReplyNestedDeeperThanTheLimitIsRefused(): void
    {
        // 300,000 levels built as PHP arrays would crash PHP (SIGSEGV) when freed.
        $wire = str_repeat("*1\r\n", 300_000) . ":1\r\n";
        $this->assertRefused(new RespParser(), $wire, RespLimit::Depth, 64, 65);
    }

    public function testNestingUpToTheLimitIsFine(): void
    {
        $parser = new RespParser(maxDepth: 3);
        $replies = $parser->feed("*1\r\n*1\r\n*1\r\n:1\r\n");
        self::assertSame([[[[1]]]], $replies);
        $this->assertRefused(new RespParser(maxDepth: 3), "*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", RespLimit::Depth, 3, 4);
    }

    public function testAnArrayAnnouncingMoreElementsThanTheLimitIsRefused(): void
    {
        $this->assertRefused(new RespParser(), "*2000000000\r\n", RespLimit::Elements, 1_000_000, 2_000_000_000);
    }

    public function testElementsAreCountedAcrossTheLevelsOfOneReplyAndPerReply(): void
    {
        $parser = new RespParser(maxElements: 4);
        // 2 + 2 elements: at the limit, and the count starts again with the next reply.
        self::assertSame([[[1], [2]], [[1], [2]]], $parser->feed("*2\r\n*1\r\n:1\r\n*1\r\n:2\r\n*2\r\n*1\r\n:1\r\n*1\r\n:2\r\n"));
        $this->assertRefused(new RespParser(maxElements: 4), "*2\r\n*2\r\n:1\r\n:2\r\n*1\r\n:3\r\n", RespLimit::Elements, 4, 5);
    }

    public function testABulkStringLongerThanTheLimitIsRefusedFromItsHeader(): void
    {
        $this->assertRefused(new RespParser(), "$2147483648\r\n", RespLimit::BulkLength, 536_870_912, 2_147_483_648);
        $this->assertRefused(new RespParser(maxBulkLength: 10), "$11\r\nhello", RespLimit::BulkLength, 10, 11);
        self::assertSame(['0123456789'], (new RespParser(maxBulkLength: 10))->feed("$10\r\n0123456789\r\n"));
    }

    public function testALineWithoutItsEndIsRefusedPastTheLimit(): void
    {
        $parser = new RespParser(maxLineLength: 100);
        self::assertSame([], $parser->feed('+' . str_repeat('a', 100)));
        $this->assertRefused($parser, 'a', RespLimit::LineLength, 100, 101);
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function badHeaders(): iterable
    {
        yield 'bulk length not a number' => ["\$abc\r\n"];
        yield 'array count not a number' => ["*x\r\n"];
        yield 'negative bulk length' => ["$-2\r\n"];
        yield 'negative array count' => ["*-5\r\n"];
        yield 'length beyond 64 bits' => ["$99999999999999999999999\r\n"];
    }

    #[DataProvider('badHeaders')]
    public function testAHeaderThatIsNotALengthIsAProtocolError(string $wire): void
    {
        $this->expectException(RedisProtocolException::class);
        (new RespParser())->feed($wire);
    }

    private function assertRefused(RespParser $parser, string $wire, RespLimit $limit, int $max, int $actual): void
    {
        try {
            $parser->feed($wire);
            self::fail('the reply must be refused');
        } catch (RedisReplyLimitException $e) {
            self::assertSame($limit, $e->limit);
            self::assertSame($max, $e->max);
            self::assertSame($actual, $e->actual);
            self::assertStringContainsString($limit->value, $e->getMessage());
        }
    }
}
