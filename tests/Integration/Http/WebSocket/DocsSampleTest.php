<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\TestCase;

/**
 * Runs the server of docs/websocket.md ("A server by hand") as written, in its own process, and
 * talks to it: the doc's sample must keep working.
 */
final class DocsSampleTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../../..';

    public function testTheHandWiredServerOfTheDocsWorks(): void
    {
        $doc = (string) file_get_contents(self::ROOT . '/docs/websocket.md');
        $section = strstr($doc, '## A server by hand');
        self::assertIsString($section, 'docs/websocket.md has its "A server by hand" section');
        if (preg_match('/```php\n(.*?)```/s', $section, $match) !== 1) {
            self::fail('The "A server by hand" section has no php block.');
        }
        $script = tempnam(sys_get_temp_dir(), 'nexus-ws-doc-');
        self::assertIsString($script);
        file_put_contents($script, $match[1]);
        $process = proc_open([\PHP_BINARY, $script], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        try {
            stream_set_blocking($pipes[1], false);
            stream_set_blocking($pipes[2], false);
            $first = $this->readUntil($pipes[1], "\n", 20.0);
            if (preg_match('#listening on (tcp://\S+)#', $first, $address) !== 1) {
                self::fail("The sample did not start: {$first}" . fread($pipes[2], 65_536));
            }

            $loop = new Loop();
            $client = TestClient::connect($loop, $address[1], ['Sec-WebSocket-Protocol' => 'chat.v1', 'Origin' => 'http://localhost:8080']);
            self::assertSame(101, $client->status);
            self::assertSame('chat.v1', $client->header('sec-websocket-protocol'));
            $client->sendText('hello');
            $client->sendBinary("\x01\x02");
            self::assertSame('HELLO', $client->nextFrame()?->payload);
            self::assertSame("\x01\x02", $client->nextFrame()?->payload);
            $client->sendClose(1000, 'done');
            self::assertSame(1000, $client->awaitClose()?->closeCode());

            self::assertStringContainsString('closed: 1000 done', $this->readUntil($pipes[1], 'done', 20.0));

            $refused = TestClient::connect($loop, $address[1], ['Origin' => 'https://elsewhere.example']);
            self::assertSame(403, $refused->status);
            $refused->close();
        } finally {
            proc_terminate($process, 9);
            foreach ($pipes as $pipe) {
                fclose($pipe);
            }
            proc_close($process);
            unlink($script);
        }
    }

    /**
     * @param resource $pipe
     */
    private function readUntil($pipe, string $needle, float $timeout): string
    {
        $out = '';
        $deadline = microtime(true) + $timeout;
        while (!str_contains($out, $needle) && microtime(true) < $deadline) {
            $read = [$pipe];
            $write = [];
            $except = [];
            if (@stream_select($read, $write, $except, 0, 100_000) > 0) {
                $chunk = fread($pipe, 8192);
                if ($chunk === false || ($chunk === '' && feof($pipe))) {
                    break;
                }
                $out .= $chunk;
            }
        }

        return $out;
    }
}
