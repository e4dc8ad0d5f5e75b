<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Tests\Support\NodeWs;
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
        NodeWs::node(); // skips the test, with the reason, without node, npm or the ws package
        $address = $this->startServer();

        [$exit, $output, $checks] = NodeWs::client('ws-echo-client.mjs', ['ws://' . substr($address, \strlen('tcp://')) . '/']);

        foreach ($checks as $name => $check) {
            self::assertTrue($check['ok'], "ws check \"{$name}\" failed: " . json_encode($check['detail']));
        }
        self::assertSame(0, $exit, "the ws client failed:\n{$output}");
        self::assertCount(15, $checks, "every check ran:\n{$output}");
        self::assertArrayHasKey('fragmented compressed text', $checks);
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
}
