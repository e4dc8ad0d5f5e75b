<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Redis;

use Nexus\Redis\Protocol\RespEncoder;
use Nexus\Redis\Protocol\RespParser;
use PHPUnit\Framework\TestCase;

final class RespEncoderTest extends TestCase
{
    public function testEncodesACommandAsAnArrayOfBulkStrings(): void
    {
        self::assertSame("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n", RespEncoder::command('SET', ['key', 'value']));
        self::assertSame("*1\r\n$4\r\nPING\r\n", RespEncoder::command('PING', []));
    }

    public function testNumbersAndBinaryArguments(): void
    {
        self::assertSame("*4\r\n$6\r\nINCRBY\r\n$2\r\n-5\r\n$3\r\n1.5\r\n$3\r\na\r\0\r\n", RespEncoder::command('INCRBY', [-5, 1.5, "a\r\0"]));
        self::assertSame(RespEncoder::command('ZADD', ['z', 2.0]), RespEncoder::parts(['ZADD', 'z', 2.0]));
    }

    public function testFloatsRoundTrip(): void
    {
        self::assertSame('0.1', RespEncoder::float(0.1));
        self::assertSame('3', RespEncoder::float(3.0));
        self::assertSame('+inf', RespEncoder::float(\INF));
        self::assertSame('-inf', RespEncoder::float(-\INF));
        self::assertSame(1.0E+25, (float) RespEncoder::float(1.0E+25));
        self::assertSame(0.30000000000000004, (float) RespEncoder::float(0.1 + 0.2));
    }

    public function testAnEncodedCommandParsesBackAsItsParts(): void
    {
        $parsed = (new RespParser())->feed(RespEncoder::parts(['HSET', 'h', 'f', 42]));
        self::assertSame([['HSET', 'h', 'f', '42']], $parsed);
    }
}
