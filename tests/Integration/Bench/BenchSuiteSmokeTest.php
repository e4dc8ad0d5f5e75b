<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * Runs bench/run.php --smoke as CI does and checks what it writes, never how fast anything was.
 */
final class BenchSuiteSmokeTest extends TestCase
{
    /** Every case of the issue, by its exact name. */
    private const CASES = [
        'baseline.loop',
        'actor.throughput.single',
        'actor.throughput.burst',
        'actor.throughput.stateful',
        'actor.throughput.fanout',
        'actor.throughput.multidispatch',
        'actor.tell',
        'actor.spawn',
        'actor.spawn.batch10',
        'actor.kill',
        'actor.spawn_kill',
        'actor.pingpong',
        'actor.ask_pingpong',
        'actor.memory_per_actor',
        'broker.publish',
        'mailbox.ops',
        'supervisor.child_spawn',
        'supervisor.restart',
        'supervisor.tree3',
    ];
    private const KEYS = ['case', 'unit', 'median', 'min', 'max', 'runs', 'jit'];
    private const TIME_LIMIT = 60.0;

    /** @var array{PhpProcess, list<array<string, mixed>>}|null */
    private static ?array $smoke = null;
    /** @var list<string> */
    private array $files = [];

    protected function tearDown(): void
    {
        foreach ($this->files as $file) {
            @unlink($file);
        }
    }

    public function testTheSmokeRunSucceedsAndReportsEveryCaseExactlyOnce(): void
    {
        [$process, $lines] = $this->smoke();

        self::assertSame(0, $process->exitCode, $process->describe());
        $names = array_map(static fn(array $line): mixed => $line['case'] ?? null, $lines);
        $counts = array_count_values(array_filter($names, 'is_string'));
        foreach (self::CASES as $case) {
            self::assertSame(1, $counts[$case] ?? 0, "{$case} must appear exactly once in the JSON lines.\n" . $process->describe());
        }
        self::assertCount(\count(self::CASES), $lines, 'No other case may appear.');
    }

    public function testEveryJsonLineHasTheDocumentedKeysAndTypes(): void
    {
        [, $lines] = $this->smoke();

        self::assertNotEmpty($lines);
        foreach ($lines as $line) {
            $keys = array_keys($line);
            sort($keys);
            $expected = self::KEYS;
            sort($expected);
            self::assertSame($expected, $keys);
            self::assertIsString($line['case']);
            self::assertIsString($line['unit']);
            self::assertNotSame('', $line['unit']);
            self::assertIsFloat($line['median']);
            self::assertIsFloat($line['min']);
            self::assertIsFloat($line['max']);
            self::assertIsInt($line['runs']);
            self::assertIsBool($line['jit']);
        }
    }

    public function testEveryCaseRanAtLeastFiveTimesAndItsFiguresAreOrdered(): void
    {
        [, $lines] = $this->smoke();

        foreach ($lines as $line) {
            $case = \is_string($line['case'] ?? null) ? $line['case'] : '?';
            self::assertIsInt($line['runs']);
            self::assertGreaterThanOrEqual(5, $line['runs'], $case);
            self::assertIsFloat($line['min']);
            self::assertIsFloat($line['median']);
            self::assertIsFloat($line['max']);
            self::assertGreaterThan(0.0, $line['min'], $case);
            self::assertLessThanOrEqual($line['median'], $line['min'], $case);
            self::assertLessThanOrEqual($line['max'], $line['median'], $case);
        }
    }

    public function testProgressGoesToStderrAndTheTableToStdout(): void
    {
        [$process] = $this->smoke();

        self::assertStringContainsString('[1/19] baseline.loop run 1/5', $process->stderr);
        self::assertStringContainsString('[19/19] actor.memory_per_actor run 5/5', $process->stderr);
        foreach (self::CASES as $case) {
            self::assertMatchesRegularExpression('/^' . preg_quote($case, '/') . '\s/m', $process->stdout);
        }
    }

    public function testFilterSelectsOnlyTheMatchingCases(): void
    {
        $json = $this->temporaryFile();
        $process = PhpProcess::run(['bench/run.php', '--smoke', '--filter=^actor\.(throughput|spawn$)', "--json={$json}"], self::root(), self::TIME_LIMIT);

        self::assertSame(0, $process->exitCode, $process->describe());
        $names = array_map(static fn(array $line): mixed => $line['case'] ?? null, self::readLines($json));
        self::assertSame([
            'actor.throughput.single',
            'actor.throughput.burst',
            'actor.throughput.stateful',
            'actor.throughput.fanout',
            'actor.throughput.multidispatch',
            'actor.spawn',
        ], $names);
        self::assertStringContainsString('[6/6] actor.spawn run 5/5', $process->stderr);
    }

    public function testBadOptionsAreRejectedWithUsage(): void
    {
        foreach (['--runs=4', '--filter=(', '--frobnicate', '--smoke=yes'] as $option) {
            $process = PhpProcess::run(['bench/run.php', $option], self::root(), self::TIME_LIMIT);

            self::assertSame(2, $process->exitCode, "{$option}: " . $process->describe());
            self::assertStringContainsString('Usage: php bench/run.php', $process->stderr, $option);
        }
    }

    public function testAFilterMatchingNothingIsAnError(): void
    {
        $process = PhpProcess::run(['bench/run.php', '--smoke', '--filter=^no-such-case$'], self::root(), self::TIME_LIMIT);

        self::assertSame(2, $process->exitCode, $process->describe());
        self::assertStringContainsString('No case matches the filter.', $process->stderr);
    }

    /**
     * @return array{PhpProcess, list<array<string, mixed>>}
     */
    private function smoke(): array
    {
        if (self::$smoke === null) {
            $json = $this->temporaryFile();
            $process = PhpProcess::run(['bench/run.php', '--smoke', "--json={$json}"], self::root(), self::TIME_LIMIT);
            self::$smoke = [$process, $process->exitCode === 0 ? self::readLines($json) : []];
        }

        return self::$smoke;
    }

    /**
     * @return list<array<string, mixed>>
     */
    private static function readLines(string $file): array
    {
        $contents = file_get_contents($file);
        self::assertIsString($contents, "{$file} was not written.");
        $lines = [];
        foreach (explode("\n", rtrim($contents, "\n")) as $text) {
            $line = json_decode($text, true, 4, \JSON_THROW_ON_ERROR);
            self::assertIsArray($line, "Not a JSON object: {$text}");
            $object = [];
            foreach ($line as $key => $value) {
                $object[(string) $key] = $value;
            }
            $lines[] = $object;
        }

        return $lines;
    }

    private function temporaryFile(): string
    {
        $file = tempnam(sys_get_temp_dir(), 'nexus-bench-');
        self::assertIsString($file);

        return $this->files[] = $file;
    }

    private static function root(): string
    {
        return \dirname(__DIR__, 3);
    }
}
