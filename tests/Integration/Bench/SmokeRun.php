<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\Assert;

/**
 * Runs a benchmark's runner with --smoke (tiny counts) from the project's root, asserts that it
 * exited with 0, and returns the process (its output) and the results it wrote with --json (a
 * temp file, removed afterwards).
 */
final class SmokeRun
{
    private function __construct() {}

    /**
     * @param string $runner the runner, relative to the project's root (bench/ws/run.php)
     *
     * @return array{PhpProcess, mixed}
     */
    public static function run(string $runner, float $timeout): array
    {
        $json = sys_get_temp_dir() . '/nexus-' . basename(\dirname($runner)) . '-smoke-' . getmypid() . '.json';
        try {
            $process = PhpProcess::run([$runner, '--smoke', "--json={$json}"], __DIR__ . '/../../..', $timeout);
            Assert::assertSame(0, $process->exitCode, $process->describe());

            return [$process, json_decode((string) file_get_contents($json), true, flags: \JSON_THROW_ON_ERROR)];
        } finally {
            @unlink($json);
        }
    }
}
