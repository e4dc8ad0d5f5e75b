<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Metrics;

use Nexus\Metrics\Exception\MetricDefinitionException;
use Nexus\Metrics\MetricName;
use Nexus\Metrics\MetricType;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class MetricNameTest extends TestCase
{
    /**
     * @return iterable<string, array{string, string, MetricType, string}>
     */
    public static function names(): iterable
    {
        yield 'OTel histogram in seconds' => ['http.server.request.duration', 's', MetricType::Histogram, 'http_server_request_duration_seconds'];
        yield 'counter gets _total' => ['nexus.actors.started', '{actor}', MetricType::Counter, 'nexus_actors_started_total'];
        yield 'counter with a unit' => ['process.cpu.time', 's', MetricType::Counter, 'process_cpu_time_seconds_total'];
        yield 'bytes' => ['process.memory.usage', 'By', MetricType::Gauge, 'process_memory_usage_bytes'];
        yield 'ratio for a gauge only' => ['system.cpu.utilization', '1', MetricType::Gauge, 'system_cpu_utilization_ratio'];
        yield 'no ratio for a counter' => ['things.done', '1', MetricType::Counter, 'things_done_total'];
        yield 'unit already there' => ['request_duration_seconds', 's', MetricType::Histogram, 'request_duration_seconds'];
        yield '_total already there' => ['jobs_total', '', MetricType::Counter, 'jobs_total'];
        yield 'odd characters collapse' => ['a.b-c/d..e', '', MetricType::Gauge, 'a_b_c_d_e'];
        yield 'rate unit' => ['link.throughput', 'By/s', MetricType::Gauge, 'link_throughput_bytes_per_second'];
        yield 'milliseconds kept as asked' => ['db.wait', 'ms', MetricType::Histogram, 'db_wait_milliseconds'];
    }

    #[DataProvider('names')]
    public function testOtelNamesBecomePrometheusNames(string $name, string $unit, MetricType $type, string $expected): void
    {
        self::assertSame($expected, MetricName::prometheus($name, $unit, $type));
    }

    public function testLabelNamesLoseTheirDots(): void
    {
        self::assertSame('http_request_method', MetricName::label('http.request.method'));
        self::assertSame('kind', MetricName::label('kind'));
    }

    public function testBadNamesAreRefusedWithTheRule(): void
    {
        foreach (['', '1abc', 'a b', 'é', str_repeat('a', 256)] as $bad) {
            try {
                MetricName::prometheus($bad, '', MetricType::Gauge);
                self::fail("'{$bad}' was accepted");
            } catch (MetricDefinitionException $e) {
                self::assertStringContainsString('start with a letter', $e->getMessage());
            }
        }
        $this->expectException(MetricDefinitionException::class);
        $this->expectExceptionMessage('reserved');
        MetricName::label('__name__');
    }
}
