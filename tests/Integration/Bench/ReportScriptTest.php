<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\PerformanceDoc;
use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * bench/report.php on hand-made results: it rewrites only the marked section and writes a chart.
 */
final class ReportScriptTest extends TestCase
{
    private string $directory;

    protected function setUp(): void
    {
        $this->directory = sys_get_temp_dir() . '/nexus-report-' . bin2hex(random_bytes(6));
        mkdir($this->directory . '/img', 0o777, true);
    }

    protected function tearDown(): void
    {
        foreach (['jit.json', 'nojit.json', 'performance.md', 'img/chart.svg'] as $file) {
            @unlink("{$this->directory}/{$file}");
        }
        @rmdir("{$this->directory}/img");
        @rmdir($this->directory);
    }

    public function testItRewritesTheMarkedSectionAndWritesTheChart(): void
    {
        $this->results('jit.json', true, ['baseline.loop' => 20e6, 'actor.throughput.single' => 8e6, 'actor.pingpong' => 1.5]);
        $this->results('nojit.json', false, ['baseline.loop' => 10e6, 'actor.throughput.single' => 2e6, 'actor.pingpong' => 3.0]);
        file_put_contents("{$this->directory}/performance.md", "# Title\n\nIntro.\n\n" . PerformanceDoc::START . "\nold\n" . PerformanceDoc::END . "\n\nAfter.\n");

        $process = $this->report();

        self::assertSame(0, $process->exitCode, $process->describe());
        $doc = (string) file_get_contents("{$this->directory}/performance.md");
        self::assertStringStartsWith("# Title\n\nIntro.\n\n" . PerformanceDoc::START . "\n", $doc);
        self::assertStringEndsWith(PerformanceDoc::END . "\n\nAfter.\n", $doc);
        self::assertStringNotContainsString("\nold\n", $doc);
        // 8M msgs/s is 0.40x the baseline: both targets met. 1.5 us misses <= 1 us.
        self::assertMatchesRegularExpression('/\| `actor\.throughput\.single` \| msgs\/s \| 8\.00M msgs\/s .*\| 0\.40x \/ 0\.20x \|.*\| yes \|/', $doc);
        self::assertMatchesRegularExpression('/\| `actor\.pingpong` \| µs \| 1\.50 µs .*\| \*\*no\*\* \|/', $doc);
        self::assertMatchesRegularExpression('/\| `actor\.spawn` \|.*\| — \| — \|.*\| not run \|/', $doc);
        self::assertStringContainsString('(img/chart.svg)', $doc);

        $svg = new \DOMDocument();
        self::assertTrue($svg->loadXML((string) file_get_contents("{$this->directory}/img/chart.svg")));
    }

    public function testItRefusesADocumentWithoutMarkers(): void
    {
        $this->results('jit.json', true, ['baseline.loop' => 20e6]);
        $this->results('nojit.json', false, ['baseline.loop' => 10e6]);
        file_put_contents("{$this->directory}/performance.md", "# No markers\n");

        $process = $this->report();

        self::assertSame(1, $process->exitCode, $process->describe());
        self::assertStringContainsString('lacks the markers', $process->stderr);
        self::assertSame("# No markers\n", file_get_contents("{$this->directory}/performance.md"));
    }

    public function testMissingResultsAreReported(): void
    {
        file_put_contents("{$this->directory}/performance.md", PerformanceDoc::START . PerformanceDoc::END);

        $process = $this->report();

        self::assertSame(1, $process->exitCode, $process->describe());
        self::assertStringContainsString('make bench', $process->stderr);
    }

    private function report(): PhpProcess
    {
        return PhpProcess::run([
            'bench/report.php',
            "--jit={$this->directory}/jit.json",
            "--nojit={$this->directory}/nojit.json",
            "--hotpath={$this->directory}/none.txt",
            "--doc={$this->directory}/performance.md",
            "--svg={$this->directory}/img/chart.svg",
        ], \dirname(__DIR__, 3), 30.0);
    }

    /**
     * @param array<string, float> $medians
     */
    private function results(string $file, bool $jit, array $medians): void
    {
        $units = ['baseline.loop' => 'msgs/s', 'actor.throughput.single' => 'msgs/s', 'actor.pingpong' => 'us'];
        $lines = '';
        foreach ($medians as $case => $median) {
            $lines .= json_encode([
                'case' => $case,
                'unit' => $units[$case],
                'median' => $median,
                'min' => $median * 0.9,
                'max' => $median * 1.1,
                'runs' => 9,
                'jit' => $jit,
            ], \JSON_THROW_ON_ERROR | \JSON_PRESERVE_ZERO_FRACTION) . "\n";
        }
        file_put_contents("{$this->directory}/{$file}", $lines);
    }
}
