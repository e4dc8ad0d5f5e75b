<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

use PHPUnit\Framework\Assert;

/**
 * The npm ws package (tests/Support/node) as an independent WebSocket client: finds node and npm,
 * installs ws once with `npm ci` from the committed lock file, runs a client script and collects
 * its JSON check lines. Tests are skipped, with the reason, when node or npm is missing or the
 * package cannot be installed.
 */
final class NodeWs
{
    public const DIR = __DIR__ . '/node';

    private function __construct() {}

    /**
     * The node binary, with ws installed; marks the test skipped otherwise.
     */
    public static function node(): string
    {
        $node = self::which('node');
        $npm = self::which('npm');
        if ($node === null || $npm === null) {
            Assert::markTestSkipped('node and npm are needed for the ws interop tests (apt-get install -y nodejs npm).');
        }
        if (!is_file(self::DIR . '/node_modules/ws/package.json')) {
            [$exit, $output] = self::run([$npm, 'ci', '--no-audit', '--no-fund', '--fetch-retries=1', '--fetch-timeout=20000', '--prefix', self::DIR], 90.0);
            if ($exit !== 0 || !is_file(self::DIR . '/node_modules/ws/package.json')) {
                Assert::markTestSkipped("Could not install the npm ws package (npm ci in tests/Support/node, exit {$exit}); is the npm registry reachable?\n" . substr($output, -2000));
            }
        }

        return $node;
    }

    /**
     * Runs a client script of tests/Support/node and returns its exit code, its output and its
     * checks by name.
     *
     * @param list<string> $arguments
     *
     * @return array{int, string, array<string, array{name: string, ok: bool, detail: mixed}>}
     */
    public static function client(string $script, array $arguments, float $timeout = 60.0): array
    {
        [$exit, $output] = self::run([self::node(), self::DIR . '/' . $script, ...$arguments], $timeout);
        $checks = [];
        foreach (explode("\n", trim($output)) as $line) {
            $check = json_decode($line, true);
            if (\is_array($check) && isset($check['name']) && \is_string($check['name'])) {
                $checks[$check['name']] = ['name' => $check['name'], 'ok' => ($check['ok'] ?? false) === true, 'detail' => $check['detail'] ?? null];
            }
        }

        return [$exit, $output, $checks];
    }

    /**
     * Runs a command until it exits or $timeout passes (then kills it).
     *
     * @param list<string> $command
     *
     * @return array{int, string} exit code and output (stdout then stderr)
     */
    public static function run(array $command, float $timeout): array
    {
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if ($process === false) {
            return [-1, 'could not start ' . implode(' ', $command)];
        }
        stream_set_blocking($pipes[1], false);
        stream_set_blocking($pipes[2], false);
        $output = ['', ''];
        $deadline = microtime(true) + $timeout;
        $open = [1 => $pipes[1], 2 => $pipes[2]];
        while ($open !== [] && microtime(true) < $deadline) {
            $read = array_values($open);
            $write = [];
            $except = [];
            if (@stream_select($read, $write, $except, 0, 100_000) === 0) {
                continue;
            }
            foreach ($open as $index => $pipe) {
                $chunk = fread($pipe, 65_536);
                if ($chunk !== false && $chunk !== '') {
                    $output[$index - 1] .= $chunk;
                } elseif (feof($pipe)) {
                    unset($open[$index]);
                }
            }
        }
        if ($open !== []) {
            proc_terminate($process, 9);
            $output[1] .= "\n(killed after {$timeout} s)";
        }
        fclose($pipes[1]);
        fclose($pipes[2]);
        $exit = proc_close($process);

        return [$exit, $output[0] . $output[1]];
    }

    private static function which(string $tool): ?string
    {
        foreach (explode(':', (string) getenv('PATH')) as $dir) {
            if ($dir !== '' && is_executable("{$dir}/{$tool}")) {
                return "{$dir}/{$tool}";
            }
        }

        return null;
    }
}
