<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cli;

use PHPUnit\Framework\TestCase;

/**
 * `bin/nexus serve` as a user runs it: a real process, real sockets, SIGTERM to stop.
 */
final class ServeCommandTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    /** @var resource|null */
    private $process = null;
    /** @var array<int, resource> */
    private array $pipes = [];

    private ?string $dataDir = null;

    protected function tearDown(): void
    {
        if (\is_resource($this->process)) {
            proc_terminate($this->process, \SIGKILL);
            proc_close($this->process);
        }
        if ($this->dataDir !== null) {
            array_map('unlink', glob($this->dataDir . '/*') ?: []);
            @rmdir($this->dataDir);
        }
    }

    public function testTheDemoAppAnswersEveryRouteAndStopsGracefullyOnSigterm(): void
    {
        $this->dataDir = sys_get_temp_dir() . '/nexus-serve-' . bin2hex(random_bytes(4));
        $base = $this->start(['serve', '--port=0', '--workers=1', '--no-jit', "--data-dir={$this->dataDir}"]);

        self::assertSame([200, 'text/plain; charset=utf-8', 'Hello, world!'], $this->request('GET', "{$base}/"));
        self::assertSame([200, 'application/json', '{"message":"Hello, Ada!"}'], $this->request('GET', "{$base}/hello/Ada"));
        self::assertSame([200, 'text/x-demo', 'ping'], $this->request('POST', "{$base}/echo", 'ping', 'text/x-demo'));
        $this->request('POST', "{$base}/counter/visits/increment");
        self::assertSame([200, 'application/json', '{"name":"visits","value":2}'], $this->request('POST', "{$base}/counter/visits/increment"));
        self::assertSame([200, 'application/json', '{"name":"visits","value":2}'], $this->request('GET', "{$base}/counter/visits"));
        self::assertSame([200, 'application/json', '{"name":"other","value":0}'], $this->request('GET', "{$base}/counter/other"));
        self::assertSame(404, $this->request('GET', "{$base}/nowhere")[0]);

        \assert(\is_resource($this->process));
        proc_terminate($this->process, \SIGTERM);
        $output = $this->readUntilExit();
        self::assertStringContainsString('Signal 15: stopping', $output);
        self::assertStringContainsString('Stopped.', $output);
    }

    public function testAnApplicationFileIsServed(): void
    {
        $base = $this->start(['serve', 'examples/app.php', '--port=0', '--workers=1', '--no-jit']);

        [$status, , $body] = $this->request('POST', "{$base}/guestbook", '{"name":"Grace"}', 'application/json');
        self::assertSame(200, $status);
        self::assertSame('{"entries":["Grace"]}', $body);
    }

    public function testWithTwoWorkersEveryRequestReachesTheOneGuestbook(): void
    {
        $base = $this->start(['serve', 'examples/app.php', '--port=0', '--workers=2', '--no-jit']);

        for ($i = 1; $i <= 12; ++$i) {
            [$status, , $body] = $this->request('POST', "{$base}/guestbook", "{\"name\":\"guest {$i}\"}", 'application/json');
            self::assertSame(200, $status, $body);
        }
        [, , $body] = $this->request('GET', "{$base}/guestbook?limit=100");
        $entries = json_decode($body, true);
        self::assertIsArray($entries);
        self::assertSame(array_map(static fn(int $i): string => "guest {$i}", range(1, 12)), $entries['entries'], 'whichever worker a request landed on, it reached the same actor');
    }

    public function testTheHandlerTimeoutAndTheHostAllowListReachEveryWorker(): void
    {
        $base = $this->start(['serve', 'tests/Integration/Cli/Fixture/waiting-app.php', '--port=0', '--workers=2', '--no-jit', '--handler-timeout=0.3', '--allowed-hosts=localhost,app.example']);

        self::assertSame(421, $this->request('GET', "{$base}/")[0], 'Host: 127.0.0.1:port is not on the list');
        for ($i = 0; $i < 4; ++$i) { // both workers, whichever the kernel picks
            self::assertSame([200, 'ok'], [$this->request('GET', "{$base}/", host: 'localhost')[0], $this->request('GET', "{$base}/", host: 'APP.example:8080')[2]]);
            self::assertSame(503, $this->request('GET', "{$base}/wait", host: 'localhost')[0], 'the handler ran out of its 0.3 s');
        }
    }

    public function testWrongCommandLinesAreUsageErrors(): void
    {
        foreach ([
            [['serve', '--workers=0'], '--workers must be a whole number from 1 to 256'],
            [['serve', '--port=99999'], '--port must be a number from 0 to 65535'],
            [['serve', 'missing-app.php', '--no-jit'], "'missing-app.php' does not exist"],
            [['serve', '--handler-timeout=-1'], '--handler-timeout must be a number of seconds above 0'],
            [['serve', '--allowed-hosts=a.example,http://b.example'], '--allowed-hosts takes host names'],
            [['serve', '--node=a'], '--node, --advertise, --listen-nodes, --cluster-secret-file and --cluster-wait go with --cluster'],
            [['serve', '--cluster-wait=5'], '--node, --advertise, --listen-nodes, --cluster-secret-file and --cluster-wait go with --cluster'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--cluster-wait=soon'], '--cluster-wait must be a whole number from 0 to 86400'],
            [['serve', '--cluster=etcd://127.0.0.1:2379'], 'A node of a cluster needs a name: --node=NAME'],
            [['serve', '--cluster=http://127.0.0.1:2379', '--node=a', '--no-jit'], '--cluster takes etcd://HOST:PORT'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a b'], '--node takes a name'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--advertise=host:1'], '--advertise takes IP:PORT'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--lease-ttl=1'], '--lease-ttl must be a whole number from 2 to 300'],
            [['serve', '--cluster-tls-cert=a.pem', '--cluster-tls-key=a.key', '--cluster-tls-ca=ca.pem'], '--cluster-tls-cert, --cluster-tls-key, --cluster-tls-ca and --cluster-tls-peer-name go with --cluster'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--cluster-tls-cert=a.pem', '--cluster-tls-ca=ca.pem'], 'takes all three of --cluster-tls-cert=FILE, --cluster-tls-key=FILE and --cluster-tls-ca=FILE, got only --cluster-tls-cert and --cluster-tls-ca'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--cluster-tls-key='], '--cluster-tls-key needs a file'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--cluster-tls-peer-name=nexus-node'], '--cluster-tls-peer-name goes with --cluster-tls-cert'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--cluster-tls-cert=a.pem', '--cluster-tls-key=a.key', '--cluster-tls-ca=ca.pem', '--cluster-tls-peer-name=a b'], '--cluster-tls-peer-name takes the DNS name or IP address'],
            [['serve', '--cluster=etcd://127.0.0.1:2379', '--node=a', '--no-jit', '--cluster-tls-cert=/nonexistent/node.pem', '--cluster-tls-key=/nonexistent/node.key', '--cluster-tls-ca=/nonexistent/ca.pem'], 'The TLS certificate file for the links between nodes, /nonexistent/node.pem, is not a readable file'],
            [['cluster', 'status'], 'nexus cluster status needs --cluster=etcd://HOST:PORT'],
            [['cluster', 'purge', '--cluster=etcd://127.0.0.1:2379'], 'nexus cluster takes one action: status'],
        ] as [$arguments, $message]) {
            $process = PhpProcess::run(['bin/nexus', ...$arguments], self::ROOT);
            self::assertSame(2, $process->exitCode, $process->describe());
            self::assertStringContainsString($message, $process->stderr);
        }
    }

    public function testHelpDescribesTheOptions(): void
    {
        $process = PhpProcess::run(['bin/nexus', 'serve', '--help'], self::ROOT);

        self::assertSame(0, $process->exitCode, $process->describe());
        self::assertStringContainsString('--workers', $process->stdout);
        self::assertStringContainsString('APP_FILE', $process->stdout);
        self::assertStringContainsString('--handler-timeout', $process->stdout);
        self::assertStringContainsString('--allowed-hosts', $process->stdout);
        self::assertStringContainsString('--cluster', $process->stdout);
        self::assertStringContainsString('--advertise', $process->stdout);
        self::assertStringContainsString('--cluster-tls-cert', $process->stdout);
        self::assertStringContainsString('--cluster-tls-peer-name', $process->stdout);
        self::assertStringContainsString('--cluster-wait', $process->stdout);
    }

    public function testAClusterThatCannotBeReachedIsAClearFailure(): void
    {
        $port = stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($port);
        $free = (int) substr((string) stream_socket_get_name($port, false), 10);
        fclose($port); // nothing listens there now
        $this->dataDir = sys_get_temp_dir() . '/nexus-serve-' . bin2hex(random_bytes(4));
        // A node waits for etcd as it starts (NodeWaitsForEtcdTest); --cluster-wait bounds that.
        $process = PhpProcess::run(['bin/nexus', 'serve', '--port=0', '--no-jit', "--data-dir={$this->dataDir}", "--cluster=etcd://127.0.0.1:{$free}", '--node=a', '--cluster-wait=1'], self::ROOT, 30.0);
        self::assertSame(1, $process->exitCode, $process->describe());
        self::assertStringContainsString("etcd at http://127.0.0.1:{$free} did not answer within --cluster-wait=1 s (last error: etcd did not answer", $process->stderr);

        $status = PhpProcess::run(['bin/nexus', 'cluster', 'status', "--cluster=etcd://127.0.0.1:{$free}"], self::ROOT, 30.0);
        self::assertSame(1, $status->exitCode, $status->describe());
        self::assertStringContainsString('etcd did not answer', $status->stderr);
    }

    /**
     * @param list<string> $arguments
     */
    private function start(array $arguments): string
    {
        $command = [\PHP_BINARY, 'bin/nexus', ...$arguments];
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $this->process = $process;
        $this->pipes = $pipes;
        stream_set_blocking($pipes[1], false);
        $output = '';
        $deadline = microtime(true) + 10.0;
        while (microtime(true) < $deadline) {
            $output .= (string) fread($pipes[1], 8192);
            if (preg_match('#on (http://127\.0\.0\.1:\d+)#', $output, $match) === 1) {
                return $match[1];
            }
            usleep(10_000);
        }
        self::fail("The server did not say where it listens within 10 s. Output: {$output} " . stream_get_contents($pipes[2]));
    }

    /**
     * @return array{int, string, string} status, content type, body
     */
    private function request(string $method, string $url, string $body = '', ?string $contentType = null, ?string $host = null): array
    {
        $headers = ['Connection: close'];
        if ($host !== null) {
            $headers[] = "Host: {$host}";
        }
        if ($contentType !== null) {
            $headers[] = "Content-Type: {$contentType}";
        }
        $context = stream_context_create(['http' => [
            'method' => $method,
            'header' => implode("\r\n", $headers),
            'content' => $body,
            'ignore_errors' => true,
            'timeout' => 5.0,
        ]]);
        $response = file_get_contents($url, false, $context);
        self::assertIsString($response, "{$method} {$url} got no response");
        /** @var list<string> $http_response_header */
        $status = (int) explode(' ', $http_response_header[0])[1];
        $type = '';
        foreach ($http_response_header as $line) {
            if (stripos($line, 'content-type:') === 0) {
                $type = trim(substr($line, 13));
            }
        }

        return [$status, $type, $response];
    }

    private function readUntilExit(): string
    {
        \assert(\is_resource($this->process));
        $output = '';
        $deadline = microtime(true) + 15.0;
        while (microtime(true) < $deadline && proc_get_status($this->process)['running']) {
            $output .= (string) fread($this->pipes[1], 8192);
            usleep(10_000);
        }
        $output .= (string) stream_get_contents($this->pipes[1]);
        self::assertFalse(proc_get_status($this->process)['running'], 'the server stopped within 15 s of SIGTERM');

        return $output;
    }
}
