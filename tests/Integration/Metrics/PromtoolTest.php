<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Metrics;

use Nexus\Metrics\Aggregation;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use Nexus\Metrics\SnapshotMerger;
use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\Promtool;
use PHPUnit\Framework\TestCase;

/**
 * The exposition is checked by Prometheus' own parser and linter: `promtool check metrics`
 * (Debian package prometheus, installed by `make setup`, or here when missing and root).
 */
final class PromtoolTest extends TestCase
{
    public function testASingleRegistryPassesPromtool(): void
    {
        $this->assertPromtoolAccepts(PrometheusText::render(self::registry()->snapshot()));
    }

    public function testAMergeOfWorkersPassesPromtool(): void
    {
        $this->assertPromtoolAccepts(PrometheusText::render(SnapshotMerger::merge([
            '0' => self::registry()->snapshot(),
            '1' => self::registry()->snapshot(),
        ])));
    }

    public function testPromtoolWouldCatchABrokenExposition(): void
    {
        $promtool = $this->promtool();
        [$code, $output] = Promtool::check($promtool, "# TYPE x counter\nx{a=\"unterminated} 1\n");

        self::assertNotSame(0, $code, "promtool accepted a broken exposition: {$output}");
    }

    private static function registry(): Registry
    {
        $registry = new Registry();
        $requests = $registry->counter('http.server.requests', 'HTTP requests answered.', ['http.request.method', 'http.route', 'http.response.status_code'], '{request}', maxSeries: 3);
        $requests->labels('GET', '/counter/{name}', '200')->inc();
        $requests->labels('POST', '/counter/{name}', '200')->add(2);
        $requests->labels('GET', "/odd \"quoted\" \\ \n route", '404')->inc();
        $requests->labels('GET', '/overflowing', '500')->inc();
        $duration = $registry->histogram('http.server.request.duration', "Duration of HTTP server requests.\nIn seconds.", ['http.request.method']);
        foreach ([0.001, 0.02, 0.3, 4.0, 12.0] as $seconds) {
            $duration->labels('GET')->observe($seconds);
        }
        $registry->gauge('process.memory.usage', 'Resident set size of the process.', [], 'By')->set(50_000_000);
        $registry->gaugeCallback('nexus.actors.live', 'Actors alive now.', static fn(): int => 12, unit: '{actor}');
        $registry->counterCallback('nexus.dead_letters', 'Dead letters by reason.', static fn(): array => [[['mailbox full'], 1], [['no such actor'], 2]], ['reason'], '{message}');
        $registry->counter('nexus.worker.restarts', 'Worker processes restarted.', aggregation: Aggregation::PerWorker)->inc();
        $registry->gauge('nexus.cpu.ratio', 'Share of a core used.', [], '1')->set(0.25);
        $registry->gaugeCallback('failing', 'A callback that throws.', static fn(): never => throw new \RuntimeException('no'));

        return $registry;
    }

    private function assertPromtoolAccepts(string $exposition): void
    {
        $promtool = $this->promtool();
        [$code, $output] = Promtool::check($promtool, $exposition);

        self::assertSame(0, $code, "promtool check metrics failed:\n{$output}\n--- exposition ---\n{$exposition}");
        self::assertSame('', trim($output), 'promtool reports no lint problem');
    }

    private function promtool(): string
    {
        $promtool = DebianTool::find('promtool', 'prometheus', $why);
        if ($promtool === null) {
            self::markTestSkipped("promtool is needed to validate the exposition: {$why}");
        }

        return $promtool;
    }

}
