<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use PHPUnit\Framework\TestCase;

/**
 * `nexus serve --workers=2`: a master and two worker processes, real sockets, real signals.
 */
final class WorkerPoolTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    /** @var resource|null */
    private $process = null;
    /** @var array<int, resource> */
    private array $pipes = [];
    private string $output = '';
    private string $errors = '';
    private int $port = 0;

    protected function tearDown(): void
    {
        if (\is_resource($this->process)) {
            $status = proc_get_status($this->process);
            if ($status['running']) {
                posix_kill($status['pid'], \SIGTERM);
                $deadline = microtime(true) + 5.0;
                while (proc_get_status($this->process)['running'] && microtime(true) < $deadline) {
                    usleep(10_000);
                }
                if (proc_get_status($this->process)['running']) {
                    proc_terminate($this->process, \SIGKILL);
                }
            }
            proc_close($this->process);
        }
    }

    public function testCountersStayExactWhenIncrementsLandOnDifferentWorkers(): void
    {
        $this->start();
        $pids = [];
        $clients = [];
        for ($i = 0; $i < 200; ++$i) {
            $clients[] = $this->open("POST /counter/hits/increment HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            if (\count($clients) === 20) {
                $this->finish($clients);
                $clients = [];
            }
            if ($i % 10 === 0) {
                $pid = $this->get('/pid')['pid'] ?? null;
                \assert(\is_int($pid));
                $pids[$pid] = true;
            }
        }
        $this->finish($clients);

        self::assertSame(['name' => 'hits', 'value' => 200], $this->get('/counter/hits'));
        self::assertCount(2, $pids, 'both workers answered requests');
    }

    public function testAWorkerKilledUnderLoadIsReplacedAndTheOthersConnectionsSeeNoFailure(): void
    {
        $this->start();
        $load = new LoadClient('127.0.0.1', $this->port, 16);
        $load->run(0.5);
        self::assertCount(2, $load->byPid, 'the load reached both workers');
        $victim = array_key_first($load->byPid);
        \assert(\is_int($victim));
        $this->get('/counter/k1');
        $killedAt = 0.0;
        $load->run(1.5, static function () use ($victim, &$killedAt): void {
            posix_kill($victim, \SIGKILL);
            $killedAt = microtime(true);
        }, 0.2);
        $load->close();

        self::assertSame([], $load->failuresNotOn($victim), 'connections on the surviving worker never failed');
        $newcomers = array_filter($load->firstSeen, static fn(float $at): bool => $at > $killedAt);
        self::assertCount(1, $newcomers, 'a replacement answered during the load');
        self::assertLessThan(1.0, min([...$newcomers, \INF]) - $killedAt, 'the replacement answered within a second of the kill');
        $pids = $this->pids(20);
        self::assertNotContains($victim, $pids);
        self::assertCount(2, $pids, 'a replacement runs: ' . $this->output);
        self::assertMatchesRegularExpression('/Worker \d \(pid ' . $victim . '\) died \(killed by signal 9\); starting a replacement/', $this->stderr());
        foreach (['k1', 'k2', 'k3', 'k4', 'k5', 'k6'] as $name) {
            self::assertSame(['name' => $name, 'value' => 1], $this->post("/counter/{$name}/increment"), 'the named actors of the dead worker work again');
        }
    }

    public function testSighupReloadsEveryWorkerUnderLoadWithoutAFailedRequest(): void
    {
        $this->start();
        $load = new LoadClient('127.0.0.1', $this->port, 16);
        $load->run(0.5);
        $before = array_keys($load->byPid);
        $masterPid = $this->masterPid();
        $load->run(3.0, static function () use ($masterPid): void {
            posix_kill($masterPid, \SIGHUP);
        }, 0.2);
        $load->close();

        self::assertSame([], array_column($load->failures, 1), 'no request failed during the reload');
        $after = $this->pids(20);
        self::assertCount(2, $after);
        self::assertSame([], array_intersect($before, $after), 'both workers were replaced');
        self::assertGreaterThan(1000, $load->ok);
    }

    public function testAWorkerIsRecycledAfterItsRequestLimit(): void
    {
        $this->start(['--max-requests=50']);
        $first = $this->pids(10);
        for ($i = 0; $i < 120; ++$i) {
            $this->get('/');
        }
        usleep(1_500_000);

        $now = $this->pids(20);
        self::assertCount(2, $now);
        self::assertNotSame($first, $now, 'recycled workers have new pids');
        self::assertStringContainsString('asks to be recycled: served', $this->stderr());
    }

    public function testAnIdlePoolUsesAlmostNoCpu(): void
    {
        $this->start();
        $workers = $this->pids(20);
        $before = array_map(self::cpuTicks(...), $workers);
        usleep(1_000_000);
        $after = array_map(self::cpuTicks(...), $workers);

        foreach ($workers as $i => $pid) {
            self::assertLessThanOrEqual(5, $after[$i] - $before[$i], "worker {$pid} used at most 50 ms of CPU in an idle second (it spins only briefly before sleeping)");
        }
    }

    public function testSigtermStopsTheMasterAndEveryWorker(): void
    {
        $this->start();
        $workers = $this->pids(20);
        self::assertCount(2, $workers);
        posix_kill($this->masterPid(), \SIGTERM);
        $deadline = microtime(true) + 10.0;
        \assert(\is_resource($this->process));
        while (proc_get_status($this->process)['running'] && microtime(true) < $deadline) {
            usleep(20_000);
        }

        self::assertFalse(proc_get_status($this->process)['running'], 'the master stopped');
        foreach ($workers as $pid) {
            self::assertFalse(posix_kill($pid, 0), "worker {$pid} stopped");
        }
    }

    /**
     * @param list<string> $options
     */
    private function start(array $options = []): void
    {
        $command = [\PHP_BINARY, 'bin/nexus', 'serve', __DIR__ . '/pool-app.php', '--port=0', '--workers=2', '--no-jit', ...$options];
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $this->process = $process;
        $this->pipes = $pipes;
        stream_set_blocking($pipes[1], false);
        stream_set_blocking($pipes[2], false);
        $deadline = microtime(true) + 10.0;
        while (microtime(true) < $deadline) {
            $this->output .= (string) fread($pipes[1], 8192);
            if (preg_match('#on http://127\.0\.0\.1:(\d+)#', $this->output, $match) === 1) {
                $this->port = (int) $match[1];
                // Both workers answer once the pool is up.
                while (\count($this->pids(10)) < 2 && microtime(true) < $deadline) {
                    usleep(20_000);
                }

                return;
            }
            usleep(10_000);
        }
        self::fail("The pool did not start within 10 s: {$this->output} {$this->stderr()}");
    }

    private static function cpuTicks(int $pid): int
    {
        $stat = (string) file_get_contents("/proc/{$pid}/stat");
        $fields = explode(' ', substr($stat, (int) strrpos($stat, ')') + 2));

        return (int) $fields[11] + (int) $fields[12];
    }

    private function masterPid(): int
    {
        \assert(\is_resource($this->process));

        return proc_get_status($this->process)['pid'];
    }

    private function stderr(): string
    {
        $this->errors .= (string) stream_get_contents($this->pipes[2]);

        return $this->errors;
    }

    /**
     * @return list<int> the distinct worker pids that answer $tries requests on new connections
     */
    private function pids(int $tries): array
    {
        $pids = [];
        for ($i = 0; $i < $tries; ++$i) {
            $pid = $this->get('/pid')['pid'] ?? null;
            if (\is_int($pid)) {
                $pids[$pid] = true;
            }
        }
        $pids = array_keys($pids);
        sort($pids);

        return $pids;
    }

    /**
     * @return array<mixed>
     */
    private function get(string $path): array
    {
        return $this->exchange("GET {$path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }

    /**
     * @return array<mixed>
     */
    private function post(string $path): array
    {
        return $this->exchange("POST {$path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    }

    /**
     * @return array<mixed>
     */
    private function exchange(string $request): array
    {
        $response = $this->finish([$this->open($request)])[0];
        $decoded = json_decode(substr($response, (int) strpos($response, "\r\n\r\n") + 4), true);

        return \is_array($decoded) ? $decoded : [];
    }

    /**
     * @return resource
     */
    private function open(string $request): mixed
    {
        $socket = stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $errstr, 5.0);
        self::assertIsResource($socket, "connect: {$errstr}");
        fwrite($socket, $request);

        return $socket;
    }

    /**
     * @param list<resource> $sockets
     *
     * @return list<string> each whole response
     */
    private function finish(array $sockets): array
    {
        $responses = [];
        foreach ($sockets as $socket) {
            stream_set_timeout($socket, 5);
            $response = (string) stream_get_contents($socket);
            fclose($socket);
            self::assertStringStartsWith('HTTP/1.1 200', $response);
            $responses[] = $response;
        }

        return $responses;
    }
}
