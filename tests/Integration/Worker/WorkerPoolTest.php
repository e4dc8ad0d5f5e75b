<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use PHPUnit\Framework\AssertionFailedError;
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
            $process = $this->process;
            $status = proc_get_status($process);
            if ($status['running']) {
                posix_kill($status['pid'], \SIGTERM);
                $this->waitUntil(static fn(): bool => !proc_get_status($process)['running'], 15.0);
                if (proc_get_status($process)['running']) {
                    proc_terminate($process, \SIGKILL);
                }
            }
            proc_close($process);
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
        $load->reconnectWhile = static fn(): bool => \count($load->byPid) < 2;
        $load->run(20.0, until: static fn(): bool => \count($load->byPid) === 2); // the load reaches both workers
        $victim = array_key_first($load->byPid);
        \assert(\is_int($victim));
        $this->get('/counter/k1');
        /** @var float $killedAt */
        $killedAt = 0.0;
        /** @return array<int, float> */
        $newcomers = static function () use ($load, &$killedAt): array {
            return array_filter($load->firstSeen, static fn(float $at): bool => $killedAt > 0.0 && $at > $killedAt);
        };
        // From the kill until the replacement answered, new connections keep coming, so that it
        // gets some (before the kill, a new connection's worker would not be known if it failed).
        $load->reconnectWhile = static function () use (&$killedAt, $newcomers): bool {
            return $killedAt > 0.0 && $newcomers() === [];
        };
        try {
            $load->run(20.0, static function () use ($victim, &$killedAt): void {
                posix_kill($victim, \SIGKILL);
                $killedAt = microtime(true);
            }, 0.2, static fn(): bool => $newcomers() !== []);
        } catch (AssertionFailedError $e) {
            self::fail("No answer from a replacement of worker pid {$victim} within 20 s of its kill; answers by pid: " . json_encode($load->byPid) . "\n" . $this->stderr());
        }
        $load->run(0.3); // and goes on a little with the replacement
        $load->close();

        self::assertSame([], $load->failuresNotOn($victim), 'connections on the surviving worker never failed');
        self::assertCount(1, $newcomers(), 'a replacement answered during the load');
        self::assertLessThan(5.0, min([...$newcomers(), \INF]) - $killedAt, 'the replacement answered within seconds of the kill, even on a loaded machine');
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
        $load->reconnectWhile = static fn(): bool => \count($load->byPid) < 2;
        $load->run(20.0, until: static fn(): bool => \count($load->byPid) === 2);
        $before = array_keys($load->byPid);
        $masterPid = $this->masterPid();
        $load->run(30.0, static function () use ($masterPid): void {
            posix_kill($masterPid, \SIGHUP);
        }, 0.2, $this->reloaded(...));
        $load->run(0.3);
        $load->close();

        self::assertSame([], array_column($load->failures, 1), 'no request failed during the reload');
        $after = $this->pids(20);
        self::assertCount(2, $after);
        self::assertSame([], array_intersect($before, $after), 'both workers were replaced');
        self::assertGreaterThan(200, $load->ok);
    }

    /**
     * A reload while requests keep asking entities (counters) that live on both workers: each
     * passes to the new worker of its slot, and no request fails (none waits for an ask to time
     * out, none meets two copies).
     */
    public function testSighupUnderALoadOfActorRequestsFailsNoRequest(): void
    {
        $this->start();
        $paths = [];
        for ($i = 0; $i < 16; ++$i) {
            $paths[] = "/counter/c{$i}/increment";
        }
        $load = new LoadClient('127.0.0.1', $this->port, 16, $paths, 'POST');
        $load->run(20.0, until: static fn(): bool => $load->ok >= 100);
        $masterPid = $this->masterPid();
        $load->run(30.0, static function () use ($masterPid): void {
            posix_kill($masterPid, \SIGHUP);
        }, 0.2, $this->reloaded(...));
        $load->run(0.3);
        $load->close();

        self::assertSame([], array_column($load->failures, 1), 'no request failed during the reload: ' . $this->stderr());
        self::assertGreaterThan(200, $load->ok);
        self::assertStringNotContainsString('starts its named actors and entities', $this->stderr(), 'every hand-off completed (no wait ran out)');
        self::assertStringNotContainsString('killing it', $this->stderr());
    }

    /**
     * The master's kill deadline is longer than what a worker takes to stop: here an actor
     * needs 2 s after SIGTERM to stop, more than the HTTP stop timeout plus 2 s that the master
     * used to grant, and less than the actors' own stop timeout.
     */
    public function testTheMasterLetsAWorkerStopItsActorsBeforeItKills(): void
    {
        $process = $this->launch([\PHP_BINARY, __DIR__ . '/slow-stop-pool.php', sys_get_temp_dir()]);
        $this->waitUntil(fn(): bool => str_contains($this->stderr(), 'the slow actor started'), 20.0, 'the worker and its actor started');
        posix_kill($this->masterPid(), \SIGTERM);
        $this->waitUntil(static fn(): bool => !proc_get_status($process)['running'], 30.0, 'the pool stopped');

        self::assertStringContainsString('the slow actor stopped', $this->stderr());
        self::assertMatchesRegularExpression('/Worker 0 \(pid \d+\) stopped \(exit code 0\)/', $this->stderr());
        self::assertStringNotContainsString('killing it', $this->stderr());
    }

    public function testASigtermBetweenOpenAndRunStopsThePoolGracefullyInsteadOfKillingTheMaster(): void
    {
        $process = $this->launch([\PHP_BINARY, __DIR__ . '/signal-before-run-pool.php', sys_get_temp_dir()]);
        $status = proc_get_status($process);
        $this->waitUntil(static function () use ($process, &$status): bool {
            $status = proc_get_status($process);

            return !$status['running'];
        }, 30.0, 'the pool stopped');

        self::assertFalse($status['signaled'], 'the master was killed by the signal: ' . $this->stderr());
        self::assertSame(0, $status['exitcode'], $this->stderr());
        self::assertStringContainsString('SIGTERM: stopping 1 workers gracefully', $this->stderr());
        self::assertStringContainsString('Worker pool stopped.', $this->stderr());
    }

    public function testAWorkerIsRecycledAfterItsRequestLimit(): void
    {
        $this->start(['--max-requests=50']);
        $first = $this->pids(10);
        for ($i = 0; $i < 120; ++$i) {
            $this->get('/');
        }
        $this->waitUntil(fn(): bool => array_intersect($first, $this->pids(6)) === [] && \count($this->pids(10)) === 2, 20.0, 'both workers recycled');

        self::assertStringContainsString('asks to be recycled: served', $this->stderr());
    }

    public function testAnIdlePoolUsesAlmostNoCpu(): void
    {
        $this->start();
        $workers = $this->pids(20);
        $before = array_map(self::cpuTicks(...), $workers);
        $this->observeFor(1.0);
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
        $process = $this->process;
        \assert(\is_resource($process));
        $this->waitUntil(static fn(): bool => !proc_get_status($process)['running'], 20.0, 'the master stopped');

        foreach ($workers as $pid) {
            self::assertFalse(posix_kill($pid, 0), "worker {$pid} stopped");
        }
    }

    /**
     * @param list<string> $options
     */
    private function start(array $options = []): void
    {
        $this->launch([\PHP_BINARY, 'bin/nexus', 'serve', __DIR__ . '/pool-app.php', '--port=0', '--workers=2', '--no-jit', ...$options]);
        $this->waitUntil(fn(): bool => preg_match('#on http://127\.0\.0\.1:(\d+)#', $this->output) === 1, 20.0, 'the pool started');
        $this->port = preg_match('#on http://127\.0\.0\.1:(\d+)#', $this->output, $match) === 1 ? (int) $match[1] : 0;
        // Both workers answer once the pool is up.
        $this->waitUntil(fn(): bool => \count($this->pids(10)) === 2, 20.0, 'both workers answered');
    }

    /**
     * Starts $command from the project's root with stdout and stderr piped (read without
     * blocking); tearDown() ends it.
     *
     * @param list<string> $command
     *
     * @return resource the process
     */
    private function launch(array $command): mixed
    {
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $this->process = $process;
        $this->pipes = $pipes;
        stream_set_blocking($pipes[1], false);
        stream_set_blocking($pipes[2], false);

        return $process;
    }

    /**
     * Whether the master has replaced both workers since the start (a reload or recycling done).
     */
    private function reloaded(): bool
    {
        $log = $this->stderr();

        return preg_match_all('/Worker \d ready \(pid \d+, generation 2\)/', $log) === 2
            && preg_match_all('/Worker \d \(pid \d+\) stopped/', $log) === 2;
    }

    /**
     * Waits until $condition holds, reading what the pool prints meanwhile; fails after $timeout
     * seconds with $what (or just returns, when $what is null). The wait is on the pool's output
     * pipes, so it wakes as soon as there is something to read.
     *
     * @param \Closure(): bool $condition
     */
    private function waitUntil(\Closure $condition, float $timeout, ?string $what = null): void
    {
        $deadline = microtime(true) + $timeout;
        while (!$condition()) {
            if (microtime(true) > $deadline) {
                if ($what !== null) {
                    self::fail("Waited {$timeout} s in vain for: {$what}. {$this->output} {$this->stderr()}");
                }

                return;
            }
            $this->readOutput(0.02);
        }
    }

    /**
     * Lets $seconds pass while reading what the pool prints: to show that something does not
     * happen meanwhile (the CPU an idle pool uses).
     */
    private function observeFor(float $seconds): void
    {
        $end = microtime(true) + $seconds;
        $this->waitUntil(static fn(): bool => microtime(true) >= $end, $seconds + 1.0);
    }

    private function readOutput(float $wait): void
    {
        $read = array_values(array_filter([$this->pipes[1] ?? null, $this->pipes[2] ?? null], static fn($pipe): bool => \is_resource($pipe) && !feof($pipe)));
        if ($read === []) {
            $this->stallFor($wait);

            return;
        }
        $write = $except = null;
        if (@stream_select($read, $write, $except, 0, (int) ($wait * 1e6)) > 0) {
            $this->output .= (string) fread($this->pipes[1], 65536);
            $this->errors .= (string) fread($this->pipes[2], 65536);
        }
    }

    /**
     * Waits $seconds for nothing (the pipes are closed): a select on a socket pair that never
     * becomes readable.
     */
    private function stallFor(float $seconds): void
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsArray($pair);
        $read = [$pair[0]];
        $write = $except = null;
        @stream_select($read, $write, $except, 0, (int) ($seconds * 1e6));
        fclose($pair[0]);
        fclose($pair[1]);
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
