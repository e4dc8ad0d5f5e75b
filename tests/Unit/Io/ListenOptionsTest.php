<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Io;

use Nexus\Io\Connection;
use Nexus\Io\ListenOptions;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ListenOptionsTest extends TestCase
{
    public function testDefaults(): void
    {
        $options = new ListenOptions();
        self::assertSame(511, $options->backlog);
        self::assertFalse($options->reusePort);
        self::assertNull($options->maxConnections, 'null: what the loop\'s driver can hold');
        self::assertFalse($options->tcpNoDelay);
        self::assertSame(Connection::DEFAULT_HIGH_WATER_MARK, $options->writeHighWaterMark);
        self::assertSame(32, $options->reservedDescriptors);
    }

    /**
     * @return iterable<string, array{\Closure(): ListenOptions, string}>
     */
    public static function invalid(): iterable
    {
        yield 'backlog' => [static fn(): ListenOptions => new ListenOptions(backlog: 0), 'backlog'];
        yield 'no connections' => [static fn(): ListenOptions => new ListenOptions(maxConnections: 0), 'maxConnections'];
        yield 'accept batch' => [static fn(): ListenOptions => new ListenOptions(acceptBatch: 0), 'acceptBatch'];
        yield 'high-water mark' => [static fn(): ListenOptions => new ListenOptions(writeHighWaterMark: 0), 'writeHighWaterMark'];
        yield 'accept backoff' => [static fn(): ListenOptions => new ListenOptions(acceptBackoff: 0.0), 'acceptBackoff'];
        yield 'negative reserve' => [static fn(): ListenOptions => new ListenOptions(reservedDescriptors: -1), 'reservedDescriptors'];
        yield 'reserve past half' => [static fn(): ListenOptions => new ListenOptions(reservedDescriptors: 513), 'reservedDescriptors'];
    }

    /**
     * @param \Closure(): ListenOptions $create
     */
    #[DataProvider('invalid')]
    public function testRejectsInvalidValues(\Closure $create, string $message): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage($message);
        $create();
    }
}
