<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Admin;

use Nexus\Admin\HttpLatency;
use Nexus\Metrics\Registry;
use PHPUnit\Framework\TestCase;

final class HttpLatencyTest extends TestCase
{
    public function testQuantilesInterpolateWithinBuckets(): void
    {
        $bounds = [0.1, 0.2, 0.4];

        self::assertNull(HttpLatency::quantile(0.5, $bounds, [0, 0, 0, 0]));
        self::assertEqualsWithDelta(0.05, HttpLatency::quantile(0.5, $bounds, [10, 0, 0, 0]), 1e-9);
        self::assertEqualsWithDelta(0.1625, HttpLatency::quantile(0.75, $bounds, [5, 10, 0, 0]), 1e-9, 'rank 11.25 of 15: 6.25 of the 10 in (0.1, 0.2]');
        self::assertEqualsWithDelta(0.4, HttpLatency::quantile(0.99, $bounds, [1, 0, 0, 9]), 1e-9, 'in +Inf: the highest bound');
    }

    public function testSamplesGiveRatesAndPercentilesPerInterval(): void
    {
        $registry = new Registry();
        $duration = $registry->histogram('http.server.request.duration', 'D.', ['http.request.method'], 's', [0.01, 0.1, 1]);
        $latency = new HttpLatency();
        $family = static fn(): array => $registry->snapshot()['families'][HttpLatency::FAMILY];

        $latency->sample(100.0, $family());
        for ($i = 0; $i < 90; ++$i) {
            $duration->labels('GET')->observe(0.005);
        }
        for ($i = 0; $i < 10; ++$i) {
            $duration->labels('POST')->observe(0.5);
        }
        $latency->sample(102.0, $family());

        $points = $latency->points();
        self::assertCount(1, $points);
        self::assertSame(50.0, $points[0]['rps']);
        self::assertEqualsWithDelta(0.01 * 50 / 90, $points[0]['p50'], 1e-9);
        self::assertEqualsWithDelta(0.1 + 0.9 * (5.0 / 10), $points[0]['p95'], 1e-9);
        self::assertSame(100, $latency->total());
    }

    public function testATotalThatWentDownStartsAgainInsteadOfGivingANegativeRate(): void
    {
        $latency = new HttpLatency();
        $first = new Registry();
        $first->histogram('http.server.request.duration', 'D.', [], 's', [1])->observe(0.5);
        $first->histogram('http.server.request.duration', 'D.', [], 's', [1])->observe(0.5);
        $latency->sample(1.0, $first->snapshot()['families'][HttpLatency::FAMILY]);
        $second = new Registry();
        $second->histogram('http.server.request.duration', 'D.', [], 's', [1])->observe(0.5);
        $latency->sample(2.0, $second->snapshot()['families'][HttpLatency::FAMILY]);

        self::assertSame([], $latency->points());
    }
}
