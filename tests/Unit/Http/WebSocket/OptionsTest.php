<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\WebSocketOptions;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class OptionsTest extends TestCase
{
    /**
     * @return iterable<string, array{\Closure(): mixed, string}>
     */
    public static function invalid(): iterable
    {
        yield 'frame payload under 125' => [static fn() => new WebSocketOptions(maxFramePayload: 124), 'maxFramePayload'];
        yield 'message size 0' => [static fn() => new WebSocketOptions(maxMessageSize: 0), 'maxMessageSize'];
        yield 'unsent bytes 0' => [static fn() => new WebSocketOptions(maxUnsentBytes: 0), 'maxUnsentBytes'];
        yield 'send timeout 0' => [static fn() => new WebSocketOptions(sendTimeout: 0.0), 'sendTimeout'];
        yield 'close timeout infinite' => [static fn() => new WebSocketOptions(closeTimeout: \INF), 'closeTimeout'];
        yield 'negative ping interval' => [static fn() => new WebSocketOptions(pingInterval: -1.0), 'pingInterval'];
        yield 'NaN idle timeout' => [static fn() => new WebSocketOptions(idleTimeout: \NAN), 'idleTimeout'];
        yield 'subprotocol with a space' => [static fn() => new WebSocketOptions(subprotocols: ['chat v1']), 'subprotocols'];
        yield 'origin with a comma' => [static fn() => new WebSocketOptions(allowedOrigins: ['https://a.com,https://b.com']), 'allowedOrigins'];
        yield 'deflate level 10' => [static fn() => new DeflateOptions(level: 10), 'level'];
        yield 'deflate memory 0' => [static fn() => new DeflateOptions(memoryLevel: 0), 'memoryLevel'];
        yield 'deflate window 8' => [static fn() => new DeflateOptions(windowBits: 8), 'windowBits'];
        yield 'negative threshold' => [static fn() => new DeflateOptions(threshold: -1), 'threshold'];
    }

    /**
     * @param \Closure(): mixed $make
     */
    #[DataProvider('invalid')]
    public function testRejectsInvalidSettingsNamingThem(\Closure $make, string $name): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage($name);
        $make();
    }

    public function testDefaults(): void
    {
        $options = new WebSocketOptions();
        self::assertSame(1_048_576, $options->maxFramePayload);
        self::assertSame(1_048_576, $options->maxMessageSize);
        self::assertSame(262_144, $options->maxUnsentBytes);
        self::assertSame(60.0, $options->idleTimeout);
        self::assertSame(5.0, $options->closeTimeout);
        self::assertNotNull($options->deflate);
    }

    public function testWireCodes(): void
    {
        foreach ([1000, 1003, 1007, 1014, 3000, 4999] as $code) {
            self::assertTrue(CloseCode::isValidOnWire($code), (string) $code);
        }
        foreach ([0, 999, 1004, 1005, 1006, 1015, 2999, 5000] as $code) {
            self::assertFalse(CloseCode::isValidOnWire($code), (string) $code);
        }
    }
}
