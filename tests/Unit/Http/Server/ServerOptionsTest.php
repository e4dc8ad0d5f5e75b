<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Server;

use Nexus\Http\Server\ServerOptions;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ServerOptionsTest extends TestCase
{
    public function testDefaultsAreSafe(): void
    {
        $options = new ServerOptions();
        self::assertSame(10.0, $options->headerTimeout);
        self::assertSame(15.0, $options->keepAliveTimeout);
        self::assertSame(30.0, $options->bodyTimeout);
        self::assertNull($options->maxConnections, 'null: what the loop\'s driver can hold');
        self::assertSame(8 * 1024 * 1024, $options->limits->maxBodyBytes);
        self::assertSame(30.0, $options->handlerTimeout);
        self::assertSame(30.0, $options->sendTimeout);
        self::assertSame(1024 * 1024, $options->maxBufferedPerConnection);
        self::assertSame(64 * 1024 * 1024, $options->maxBufferedTotal);
        self::assertNull($options->allowedHosts);
    }

    public function testAllowedHostsAreKeptInLowerCase(): void
    {
        self::assertSame(['a.example', '[::1]'], (new ServerOptions(allowedHosts: [' A.Example', '[::1]']))->allowedHosts);
    }

    /**
     * @return iterable<string, array{\Closure(): ServerOptions, string}>
     */
    public static function invalid(): iterable
    {
        yield 'zero header timeout' => [static fn() => new ServerOptions(headerTimeout: 0.0), 'headerTimeout'];
        yield 'infinite keep-alive' => [static fn() => new ServerOptions(keepAliveTimeout: \INF), 'keepAliveTimeout'];
        yield 'NaN linger' => [static fn() => new ServerOptions(lingerTimeout: \NAN), 'lingerTimeout'];
        yield 'negative body timeout' => [static fn() => new ServerOptions(bodyTimeout: -1.0), 'bodyTimeout'];
        yield 'no connections' => [static fn() => new ServerOptions(maxConnections: 0), 'maxConnections'];
        yield 'no pipelining' => [static fn() => new ServerOptions(maxPipelined: 0), 'maxPipelined'];
        yield 'zero handler timeout' => [static fn() => new ServerOptions(handlerTimeout: 0.0), 'handlerTimeout'];
        yield 'infinite send timeout' => [static fn() => new ServerOptions(sendTimeout: \INF), 'sendTimeout'];
        yield 'no connection buffer' => [static fn() => new ServerOptions(maxBufferedPerConnection: 0), 'maxBufferedPerConnection'];
        yield 'total below one request' => [static fn() => new ServerOptions(maxBufferedTotal: 8 * 1024 * 1024), 'largest size the limits allow'];
        yield 'empty host list' => [static fn() => new ServerOptions(allowedHosts: []), 'allowedHosts is empty'];
        yield 'host with a scheme' => [static fn() => new ServerOptions(allowedHosts: ['http://a.example']), 'without scheme or port'];
        yield 'host with a port' => [static fn() => new ServerOptions(allowedHosts: ['a.example:8080']), 'without scheme or port'];
    }

    /**
     * @param \Closure(): ServerOptions $create
     */
    #[DataProvider('invalid')]
    public function testInvalidValuesAreRefusedWithTheirName(\Closure $create, string $mentions): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage($mentions);
        $create();
    }
}
