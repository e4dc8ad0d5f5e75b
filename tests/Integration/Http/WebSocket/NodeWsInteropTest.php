<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use PHPUnit\Framework\TestCase;

/**
 * The npm ws package, an implementation that shares nothing with ours, drives an echo server
 * built on our classes (tests/Support/WebSocket/echo-server.php, a separate PHP process): text,
 * binary, fragmented, UTF-8 split across fragments, permessage-deflate whole and fragmented,
 * ping and the close handshake (tests/Support/node/ws-echo-client.mjs).
 *
 * Skipped, with the reason, when node or npm is missing or ws cannot be installed (it is
 * installed once, with `npm ci` from the committed lock file, into tests/Support/node).
 */
final class NodeWsInteropTest extends TestCase
{
    private const NODE_DIR = __DIR__ . '/../../../Support/node';

    /** @var resource|null */
    private $server = null;
    /** @var array<int, resource> */
    private array $serverPipes = [];

    protected function tearDown(): void
    {
        if ($this->server === null) {
            return;
        }
        // Closing its stdin stops the server; its stdout reaching EOF says it has exited.
        fclose($this->serverPipes[0]);
        $stdout = $this->serverPipes[1];
        $deadline = microtime(true) + 5.0;
        while (!feof($stdout) && microtime(true) < $deadline) {
            $read = [$stdout];
            $write = [];
            $except = [];
            if (@stream_select($read, $write, $except, 0, 100_000) > 0) {
                fread($stdout, 8192);
            }
        }
        fclose($stdout);
        fclose($this->serverPipes[2]);
        if (proc_get_status($this->server)['running']) {
            proc_terminate($this->server, 9);
        }
        proc_close($this->server);
    }

    public function testNpmWsClientAgainstOurEchoServer(): void
    {
        $node = self::which('node');
        $npm = self::which('npm');
        if ($node === null || $npm === null) {
            self::markTestSkipped('node and npm are needed for the ws interop test (apt-get install -y nodejs npm).');
        }
        $this->installWs($npm);
        $address = $this->startServer();

        [$exit, $output] = self::runCommand([$node, self::NODE_DIR . '/ws-echo-client.mjs', 'ws://' . substr($address, \strlen('tcp://')) . '/'], 60.0);

        $checks = [];
        foreach (explode("\n", trim($output)) as $line) {
            $check = json_decode($line, true);
            if (\is_array($check) && isset($check['name']) && \is_string($check['name'])) {
                $checks[$check['name']] = $check;
            }
        }
        foreach ($checks as $name => $check) {
            self::assertTrue($check['ok'] ?? false, "ws check \"{$name}\" failed: " . json_encode($check['detail'] ?? null));
        }
        self::assertSame(0, $exit, "the ws client failed:\n{$output}");
        self::assertCount(15, $checks, "every check ran:\n{$output}");
        self::assertArrayHasKey('fragmented compressed text', $checks);
    }

    private function installWs(string $npm): void
    {
        if (is_file(self::NODE_DIR . '/node_modules/ws/package.json')) {
            return;
        }
        [$exit, $output] = self::runCommand([$npm, 'ci', '--no-audit', '--no-fund', '--fetch-retries=1', '--fetch-timeout=20000', '--prefix', self::NODE_DIR], 90.0);
        if ($exit !== 0 || !is_file(self::NODE_DIR . '/node_modules/ws/package.json')) {
            self::markTestSkipped("Could not install the npm ws package (npm ci in tests/Support/node, exit {$exit}); is the npm registry reachable?\n" . substr($output, -2000));
        }
    }

    private function startServer(): string
    {
        $process = proc_open(
            [\PHP_BINARY, __DIR__ . '/../../../Support/WebSocket/echo-server.php'],
            [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        self::assertIsResource($process, 'the echo server started');
        $this->server = $process;
        $this->serverPipes = $pipes;
        stream_set_blocking($pipes[1], false);
        $line = '';
        $deadline = microtime(true) + 20.0;
        while (!str_contains($line, "\n") && microtime(true) < $deadline) {
            $read = [$pipes[1]];
            $write = [];
            $except = [];
            if (@stream_select($read, $write, $except, 0, 100_000) > 0) {
                $chunk = fread($pipes[1], 8192);
                if ($chunk === '' || $chunk === false) {
                    break;
                }
                $line .= $chunk;
            }
        }
        if (preg_match('#listening (tcp://\S+)#', $line, $match) !== 1) {
            self::fail('The echo server did not start: ' . $line . stream_get_contents($pipes[2]));
        }

        return $match[1];
    }

    /**
     * Runs a command until it exits or $timeout passes (then kills it).
     *
     * @param list<string> $command
     *
     * @return array{int, string} exit code and output (stdout then stderr)
     */
    private static function runCommand(array $command, float $timeout): array
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
