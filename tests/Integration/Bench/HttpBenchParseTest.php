<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\Environment;
use Nexus\Bench\Http\HttpReport;
use Nexus\Bench\Http\MalformedWrkOutput;
use Nexus\Bench\Http\Measurement;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\Http\WrkOutputParser;
use Nexus\Bench\Http\WrkResult;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The wrk output parser and the bench:http report of `make bench-http` (no wrk needed: captured outputs).
 */
final class HttpBenchParseTest extends TestCase
{
    private const CLEAN = <<<'WRK'
        Running 5s test @ http://127.0.0.1:46643/
          1 threads and 100 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency   862.50us  290.12us   4.42ms   88.01%
            Req/Sec   114.01k     3.20k  120.11k    72.00%
          Latency Distribution
             50%  812.00us
             75%    0.95ms
             90%    1.17ms
             99%    1.80ms
          567190 requests in 5.00s, 61.12MB read
        Requests/sec: 113438.12
        Transfer/sec:     12.22MB
        0m0.004s 0m0.001s
        0m1.520s 0m2.530s

        WRK;

    private const ERRORS = <<<'WRK'
        Running 5s test @ http://127.0.0.1:39001/hello/wrk
          1 threads and 1000 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency   118.07ms   14.50ms   1.52s    91.30%
            Req/Sec     7.48k   812.33     8.90k    68.00%
          Latency Distribution
             50%  115.00ms
             75%  121.40ms
             90%  130.02ms
             99%    1.03s
          37220 requests in 5.00s, 6.90MB read
          Socket errors: connect 17, read 3, write 2, timeout 41
          Non-2xx or 3xx responses: 125
        Requests/sec:   7444.31
        Transfer/sec:      1.38MB

        WRK;

    private const NO_SAMPLES = <<<'WRK'
        Running 1s test @ http://127.0.0.1:1/
          1 threads and 10 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency     0.00us    0.00us   0.00us    -nan%
            Req/Sec     0.00      0.00     0.00      -nan%
          0 requests in 1.00s, 0.00B read
          Socket errors: connect 10, read 0, write 0, timeout 0
        Requests/sec:      0.00
        Transfer/sec:       0.00B

        WRK;

    public function testItReadsACleanRunInMicrosecondsAndMilliseconds(): void
    {
        $result = WrkOutputParser::parse(self::CLEAN);

        self::assertEqualsWithDelta(113_438.12, $result->rps, 0.001);
        self::assertEqualsWithDelta(0.8625, $result->avgMs, 1e-9);
        self::assertEqualsWithDelta(0.29012, $result->stddevMs, 1e-9);
        self::assertEqualsWithDelta(4.42, $result->maxMs, 1e-9);
        self::assertNotNull($result->p99Ms);
        self::assertEqualsWithDelta(1.80, $result->p99Ms, 1e-9);
        self::assertSame(567_190, $result->requests);
        self::assertSame(0, $result->errors());
        self::assertSame(0, $result->timeouts);
        self::assertSame(0, $result->non2xx);
        self::assertTrue($result->clean());
    }

    public function testItReadsSocketErrorsNon2xxAndSeconds(): void
    {
        $result = WrkOutputParser::parse(self::ERRORS);

        self::assertEqualsWithDelta(7_444.31, $result->rps, 0.001);
        self::assertEqualsWithDelta(118.07, $result->avgMs, 1e-9);
        self::assertEqualsWithDelta(14.50, $result->stddevMs, 1e-9);
        self::assertEqualsWithDelta(1_520.0, $result->maxMs, 1e-9);
        self::assertNotNull($result->p99Ms);
        self::assertEqualsWithDelta(1_030.0, $result->p99Ms, 1e-9);
        self::assertSame(17, $result->connectErrors);
        self::assertSame(3, $result->readErrors);
        self::assertSame(2, $result->writeErrors);
        self::assertSame(22, $result->errors());
        self::assertSame(41, $result->timeouts);
        self::assertSame(125, $result->non2xx);
        self::assertFalse($result->clean());
    }

    public function testARunWithoutSamplesOrLatencyDistributionHasNoP99(): void
    {
        $result = WrkOutputParser::parse(self::NO_SAMPLES);

        self::assertSame(0.0, $result->rps);
        self::assertSame(0.0, $result->avgMs);
        self::assertNull($result->p99Ms);
        self::assertSame(10, $result->connectErrors);
    }

    /**
     * @return iterable<string, array{string, string, float}>
     */
    public static function times(): iterable
    {
        yield 'microseconds' => ['250.5', 'us', 0.2505];
        yield 'milliseconds' => ['3.25', 'ms', 3.25];
        yield 'seconds' => ['1.5', 's', 1_500.0];
        yield 'minutes' => ['2.00', 'm', 120_000.0];
        yield 'hours' => ['1', 'h', 3_600_000.0];
        yield 'nan' => ['-nan', 'us', 0.0];
    }

    #[DataProvider('times')]
    public function testItConvertsEveryTimeUnitToMilliseconds(string $number, string $unit, float $expected): void
    {
        self::assertEqualsWithDelta($expected, WrkOutputParser::milliseconds($number, $unit), 1e-9);
    }

    public function testOutputWithoutFiguresIsRejected(): void
    {
        $this->expectException(MalformedWrkOutput::class);

        WrkOutputParser::parse("unable to connect to 127.0.0.1:1 Connection refused\n");
    }

    public function testTheSectionReplacesOnlyWhatLiesBetweenTheMarkers(): void
    {
        $document = "# Performance\n\nintro\n\n" . HttpReport::START . "\nold table\n" . HttpReport::END . "\n\nafter\n";

        $updated = HttpReport::replaceSection($document, "new table\n");

        self::assertSame("# Performance\n\nintro\n\n" . HttpReport::START . "\nnew table\n" . HttpReport::END . "\n\nafter\n", $updated);
        self::assertSame($updated, HttpReport::replaceSection($updated, "new table\n"));
    }

    public function testTheMarkersAreAppendedAtTheEndWhenMissing(): void
    {
        $updated = HttpReport::replaceSection("# Performance\n\n<!-- bench:actor:start -->\nx\n<!-- bench:actor:end -->\n", "table\n");

        self::assertStringEndsWith("<!-- bench:actor:end -->\n\n" . HttpReport::START . "\ntable\n" . HttpReport::END . "\n", $updated);
        self::assertSame(1, substr_count(HttpReport::replaceSection($updated, "again\n"), HttpReport::START));
    }

    public function testOneMarkerAloneIsAnError(): void
    {
        $this->expectException(\UnexpectedValueException::class);

        HttpReport::replaceSection("# Performance\n" . HttpReport::END . "\n", "table\n");
    }

    public function testTheSectionHasEveryRunRatiosTargetsAndTheUnavailableServers(): void
    {
        $report = new HttpReport($this->measurements());
        $section = $report->section(Environment::detect(), 'make bench-http', '2026-01-01 00:00 UTC', 'img/http-bench.svg', ['wrk' => '4.1.0']);

        self::assertStringContainsString('| `nexus` | `GET /` | 100 | 90,000 | 0.90× |', $section);
        self::assertStringContainsString('| `nexus` | `GET /hello/{name}` | 100 | 60,000 | 0.60× |', $section);
        self::assertStringContainsString('| `nginx+php-fpm` | `GET /` | 100 | 7,000 | 0.07× |', $section);
        self::assertStringContainsString('Workerman', $section);
        self::assertStringContainsString('AMPHP', $section);
        self::assertStringContainsString('![HTTP benchmark', $section);

        $verdicts = array_map(static fn(array $target): ?bool => $target[2], $report->targets());
        // GET / 0.9× (met), /hello 0.6× (missed), Workerman / and /hello (n/a: not run), p99 / (met),
        // p99 /hello 6 ms (missed), errors (met).
        self::assertSame([true, false, null, null, true, false, true], $verdicts);
        self::assertStringContainsString('**Targets met: 3 of 5**', $section);
    }

    public function testNexusIsComparedWithWorkermanAtEachConnectionCountAndItsP99BoundedAtAThousand(): void
    {
        $run = static fn(string $server, string $route, int $connections, float $rps, float $p99): Measurement => new Measurement(
            $server,
            $route,
            $connections,
            1,
            5.0,
            new WrkResult($rps, 1.0, 0.3, 9.0, $p99, (int) ($rps * 5)),
            4.0,
            5.0,
            5.05,
        );
        $report = new HttpReport([
            $run(ServerLauncher::NEXUS, '/', 100, 120_000.0, 2.0),
            $run(ServerLauncher::NEXUS, '/hello/wrk', 100, 100_000.0, 2.0),
            $run(ServerLauncher::NEXUS, '/', 1000, 110_000.0, 30.0),
            $run(ServerLauncher::NEXUS, '/hello/wrk', 1000, 90_000.0, 60.0),
            $run(ServerLauncher::WORKERMAN, '/', 100, 110_000.0, 2.0),
            $run(ServerLauncher::WORKERMAN, '/hello/wrk', 100, 110_000.0, 2.0),
            $run(ServerLauncher::WORKERMAN, '/', 1000, 100_000.0, 500.0),
            $run(ServerLauncher::WORKERMAN, '/hello/wrk', 1000, 100_000.0, 700.0),
        ]);
        $byName = [];
        foreach ($report->targets() as [$target, $measured, $ok]) {
            $byName[$target] = [$measured, $ok];
        }

        self::assertTrue($byName['`GET /` ≥ 1.0× Workerman, 100 connections'][1]);
        self::assertStringStartsWith('1.09× (120,000 vs 110,000 RPS', $byName['`GET /` ≥ 1.0× Workerman, 100 connections'][0]);
        self::assertFalse($byName['`GET /hello/{name}` ≥ 1.0× Workerman, 100 connections'][1]);
        self::assertTrue($byName['`GET /` ≥ 1.0× Workerman, 1000 connections'][1]);
        self::assertFalse($byName['`GET /hello/{name}` ≥ 1.0× Workerman, 1000 connections'][1]);
        self::assertTrue($byName['`GET /` p99 < 50 ms at 1,000 connections'][1]);
        self::assertFalse($byName['`GET /hello/{name}` p99 < 50 ms at 1,000 connections'][1]);
        $skipped = new HttpReport([$run(ServerLauncher::NEXUS, '/', 100, 1.0, 1.0)], [ServerLauncher::WORKERMAN => 'no peers folder']);
        self::assertStringContainsString('`workerman`: not run: no peers folder', $skipped->section(Environment::detect(), 'x', 'now', 'c.svg'));
    }

    public function testTheChartIsAnSvgWithOneBarPerServerAndRoute(): void
    {
        $svg = (new HttpReport($this->measurements()))->chart();
        $document = new \DOMDocument();

        self::assertTrue($document->loadXML($svg));
        self::assertSame(6, substr_count($svg, 'class="bar '));
        self::assertStringContainsString('nginx+php-fpm', $svg);
    }

    public function testMeasurementsSurviveTheirJsonLine(): void
    {
        $measurement = $this->measurements()[0];
        $row = json_decode((string) json_encode($measurement->toArray()), true);
        self::assertIsArray($row);

        $copy = Measurement::fromArray($row);

        self::assertEquals($measurement->toArray(), $copy->toArray());
        self::assertSame(
            ['server', 'route', 'connections', 'rps', 'avg_ms', 'stddev_ms', 'p99_ms', 'max_ms', 'errors', 'timeouts', 'non2xx'],
            \array_slice(array_keys($row), 0, 11),
        );
    }

    /**
     * @return list<Measurement>
     */
    private function measurements(): array
    {
        $run = static fn(string $server, string $route, float $rps, float $p99): Measurement => new Measurement(
            $server,
            $route,
            100,
            1,
            5.0,
            new WrkResult($rps, 1.0, 0.3, 9.0, $p99, (int) ($rps * 5)),
            4.0,
            5.0,
            5.05,
        );

        return [
            $run(ServerLauncher::NEXUS, '/', 90_000.0, 2.0),
            $run(ServerLauncher::NEXUS, '/hello/wrk', 60_000.0, 6.0),
            $run(ServerLauncher::BARE, '/', 100_000.0, 1.0),
            $run(ServerLauncher::BARE, '/hello/wrk', 100_000.0, 1.0),
            $run(ServerLauncher::NGINX_FPM, '/', 7_000.0, 15.0),
            $run(ServerLauncher::NGINX_FPM, '/hello/wrk', 7_500.0, 15.0),
        ];
    }
}
