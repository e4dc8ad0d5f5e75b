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
        self::assertSame(1000, $options->maxConnections);
        self::assertSame(8 * 1024 * 1024, $options->limits->maxBodyBytes);
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
        yield 'past select()' => [static fn() => new ServerOptions(maxConnections: 1001), 'worker processes'];
        yield 'no pipelining' => [static fn() => new ServerOptions(maxPipelined: 0), 'maxPipelined'];
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
