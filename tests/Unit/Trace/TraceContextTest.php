<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Trace;

use Nexus\Trace\TraceContext;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class TraceContextTest extends TestCase
{
    private const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
    private const SPAN = '00f067aa0ba902b7';

    public function testAValidTraceparentIsRead(): void
    {
        $context = TraceContext::fromHeaders('00-' . self::TRACE . '-' . self::SPAN . '-01', 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');

        self::assertNotNull($context);
        self::assertSame(self::TRACE, $context->traceId);
        self::assertSame(self::SPAN, $context->spanId);
        self::assertSame(1, $context->flags);
        self::assertTrue($context->sampled());
        self::assertSame('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7', $context->traceState);
        self::assertSame('00-' . self::TRACE . '-' . self::SPAN . '-01', $context->traceparent());
    }

    public function testTheFlagsAreKeptAndAnUnsampledContextSaysSo(): void
    {
        $context = TraceContext::fromHeaders(' 00-' . self::TRACE . '-' . self::SPAN . "-00\t");

        self::assertNotNull($context);
        self::assertSame(0, $context->flags);
        self::assertFalse($context->sampled());
        self::assertSame('', $context->traceState);
        self::assertStringEndsWith('-00', $context->traceparent());
    }

    public function testALaterVersionMayCarryMoreFieldsAfterADash(): void
    {
        $context = TraceContext::fromHeaders('cc-' . self::TRACE . '-' . self::SPAN . '-01-what-the-future-holds');

        self::assertNotNull($context);
        self::assertSame(self::SPAN, $context->spanId);
        self::assertStringStartsWith('00-', $context->traceparent(), 'we send the version we speak');
    }

    /**
     * @return iterable<string, array{string|null}>
     */
    public static function malformed(): iterable
    {
        $trace = self::TRACE;
        $span = self::SPAN;
        yield 'absent' => [null];
        yield 'empty' => [''];
        yield 'garbage' => ['hello'];
        yield 'too short' => ["00-{$trace}-{$span}-1"];
        yield 'version 00 with more after it' => ["00-{$trace}-{$span}-01-extra"];
        yield 'a later version with more but no dash' => ["01-{$trace}-{$span}-01x"];
        yield 'version ff' => ["ff-{$trace}-{$span}-01"];
        yield 'version not hex' => ["0g-{$trace}-{$span}-01"];
        yield 'upper-case trace id' => ['00-' . strtoupper($trace) . "-{$span}-01"];
        yield 'all-zero trace id' => ['00-' . str_repeat('0', 32) . "-{$span}-01"];
        yield 'all-zero span id' => ["00-{$trace}-" . str_repeat('0', 16) . '-01'];
        yield 'trace id not hex' => ['00-' . str_repeat('x', 32) . "-{$span}-01"];
        yield 'flags not hex' => ["00-{$trace}-{$span}-0z"];
        yield 'wrong separators' => ["00_{$trace}_{$span}_01"];
        yield 'two headers joined' => ["00-{$trace}-{$span}-01, 00-{$trace}-{$span}-01"];
        yield 'a short trace id' => ['00-' . substr($trace, 1) . "-{$span}-01"];
    }

    #[DataProvider('malformed')]
    public function testAMalformedTraceparentIsIgnored(?string $traceparent): void
    {
        self::assertNull(TraceContext::fromHeaders($traceparent, 'congo=t61rcWkgMzE'));
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function badTraceStates(): iterable
    {
        yield 'no equals sign' => ['congo'];
        yield 'upper-case key' => ['Congo=1'];
        yield 'comma-free junk' => ['a=1;b=2 c'];
        yield 'too long' => ['a=' . str_repeat('x', 600)];
        yield 'too many members' => [implode(',', array_map(static fn(int $i): string => "k{$i}=v", range(1, 33)))];
    }

    #[DataProvider('badTraceStates')]
    public function testAMalformedTracestateIsDroppedAndTheTraceparentKept(string $tracestate): void
    {
        $context = TraceContext::fromHeaders('00-' . self::TRACE . '-' . self::SPAN . '-01', $tracestate);

        self::assertNotNull($context);
        self::assertSame('', $context->traceState);
    }

    public function testEmptyTracestateMembersAreSkipped(): void
    {
        $context = TraceContext::fromHeaders('00-' . self::TRACE . '-' . self::SPAN . '-01', 'a=1,, b=2 ,');

        self::assertSame('a=1,b=2', $context?->traceState);
    }

    public function testAContextCannotBeMadeFromInvalidIds(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('A span id is 16 lower-case hex digits');

        new TraceContext(self::TRACE, 'ABC');
    }

    public function testWithSpanKeepsTheTraceAndItsState(): void
    {
        $context = new TraceContext(self::TRACE, self::SPAN, 1, 'a=1');
        $child = $context->withSpan('1111111111111111');

        self::assertSame(self::TRACE, $child->traceId);
        self::assertSame('1111111111111111', $child->spanId);
        self::assertSame('a=1', $child->traceState);
    }
}
