<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Bench\Chaos\Ledger;
use Nexus\Bench\Chaos\LoadClient;
use Nexus\Bench\Chaos\OperationSource;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\FreePort;
use Nexus\Worker\RendezvousHash;
use PHPUnit\Framework\TestCase;

/**
 * `nexus serve` with the demo's durable counters, as a user runs it: real processes, a real
 * SQLite file or PostgreSQL database, and the server killed, reloaded and restarted.
 */
final class ServeDurableCountersTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';
    private const COUNTERS = 50;
    private const CLIENTS = 16;
    /** Increments answered 200 in each phase of the load. */
    private const LOAD_STEP = 500;

    private string $dataDir;
    /** @var resource|null */
    private $process = null;
    /** @var resource|null */
    private $stdout = null;
    private string $stderrFile;
    private string $output = '';

    protected function setUp(): void
    {
        $this->dataDir = TempDirectory::create('nexus-serve-counters-');
        $this->stderrFile = $this->dataDir . '.stderr';
    }

    protected function tearDown(): void
    {
        $this->kill();
        TempDirectory::remove($this->dataDir);
        @unlink($this->stderrFile);
    }

    public function testCountersSurviveAKillOfTheServer(): void
    {
        $base = $this->start(['--workers=1']);
        self::assertStringContainsString("Durable actors are kept in {$this->dataDir}/nexus.sqlite", $this->output);
        $this->increment($base, 'c1', 5);
        $this->increment($base, 'c2', 3);
        $this->kill();

        $base = $this->start(['--workers=1']);
        self::assertSame(['name' => 'c1', 'value' => 5], $this->json('GET', "{$base}/counter/c1"));
        self::assertSame(['name' => 'c2', 'value' => 3], $this->json('GET', "{$base}/counter/c2"));
        self::assertSame(['name' => 'c1', 'value' => 6], $this->json('POST', "{$base}/counter/c1/increment"));
    }

    public function testWithTwoWorkersCountersSurviveAReloadAndARestart(): void
    {
        $base = $this->start(['--workers=2']);
        foreach (['c1', 'c2', 'c3', 'c4', 'c5'] as $i => $name) {
            $this->increment($base, $name, $i + 1);
        }
        $master = proc_get_status($this->process ?? throw new \LogicException('not started'))['pid'];
        posix_kill($master, \SIGHUP);
        $this->waitForLog('/Worker 0 ready \(pid \d+, generation \d+\).*Worker 1 ready \(pid \d+, generation \d+\)/s', 'SIGHUP: reloading');
        foreach (['c1', 'c2', 'c3', 'c4', 'c5'] as $i => $name) {
            self::assertSame(['name' => $name, 'value' => $i + 1], $this->json('GET', "{$base}/counter/{$name}"), "{$name} after the reload");
        }
        $this->kill();

        $base = $this->start(['--workers=2']);
        foreach (['c1', 'c2', 'c3', 'c4', 'c5'] as $i => $name) {
            self::assertSame(['name' => $name, 'value' => $i + 2], $this->json('POST', "{$base}/counter/{$name}/increment"), "{$name} after a restart");
        }
    }

    public function testWithTwoWorkersIdleCountersPassivateAndRecoverOnTheirNextIncrement(): void
    {
        $base = $this->start(['--workers=2', __DIR__ . '/Fixture/passivating-counters-app.php']);
        $names = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
        $owners = array_unique(array_map(static fn(string $name): int => RendezvousHash::owner("counter/{$name}", 2), $names));
        self::assertCount(2, $owners, 'the counters live on both workers');
        foreach ($names as $i => $name) {
            $this->increment($base, $name, $i + 1);
        }

        // Each worker, asked on a new connection each time, says how many counters it holds.
        $idle = [];
        $deadline = microtime(true) + 20.0;
        while (\count($idle) < 2 && microtime(true) < $deadline) {
            $entities = $this->json('GET', "{$base}/entities");
            if ($entities['active'] === 0 && \is_int($entities['worker'])) {
                $idle[$entities['worker']] = true;
            }
            $this->waitForOutput();
        }
        self::assertCount(2, $idle, 'both workers passivated their idle counters');

        foreach ($names as $i => $name) {
            self::assertSame(['name' => $name, 'value' => $i + 2], $this->json('POST', "{$base}/counter/{$name}/increment"), "{$name} recovered from its events");
        }
    }

    public function testCountersAreKeptInPostgresqlWithStore(): void
    {
        PersistenceDatabase::reset();
        $url = PostgresUrl::redact(PersistenceDatabase::config());
        $base = $this->start(['--workers=1', "--store={$url}"]);
        self::assertStringContainsString("Durable actors are kept in {$url}", $this->output);
        $this->increment($base, 'pg', 4);
        $this->kill();

        $base = $this->start(['--workers=1', "--store={$url}"]);
        self::assertSame(['name' => 'pg', 'value' => 5], $this->json('POST', "{$base}/counter/pg/increment"));
        $result = pg_query(PersistenceDatabase::adminLink(), "SELECT count(*) FROM nexus_journal WHERE persistence_id = 'counter|pg' AND event_name = 'demo.counter.incremented'");
        self::assertNotFalse($result);
        self::assertSame('5', pg_fetch_result($result, 0, 0));
    }

    public function testAWriteTheStoreCannotTakeIsA503AndNothingAcknowledgedIsLost(): void
    {
        $base = $this->start(['--workers=1']);
        $this->increment($base, 'locked', 2);
        $other = new \PDO("sqlite:{$this->dataDir}/nexus.sqlite", null, null, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]);
        $other->exec('BEGIN EXCLUSIVE');

        [$status, $body] = $this->request('POST', "{$base}/counter/locked/increment");
        self::assertSame(503, $status, $body);
        self::assertStringContainsString('try again', $body);
        $this->waitForLog('/database is locked/');
        $other->exec('ROLLBACK');

        $value = null;
        $deadline = microtime(true) + 20.0;
        while ($value === null && microtime(true) < $deadline) {
            [$status, $body] = $this->request('POST', "{$base}/counter/locked/increment");
            if ($status === 200) {
                $value = json_decode($body, true);
            }
        }
        self::assertSame(['name' => 'locked', 'value' => 3], $value, 'the counter restarted from the store: the refused increment was never counted');
    }

    public function testWhilePostgresqlIsGoneWritesAre503AndTheCounterGoesOnFromWhatWasAcknowledged(): void
    {
        PersistenceDatabase::reset();
        $url = PostgresUrl::redact(PersistenceDatabase::config());
        $base = $this->start(['--workers=1', "--store={$url}"]);
        $this->increment($base, 'gone', 2);
        // The database goes away for the server: its connections are ended and new ones refused.
        PersistenceDatabase::setReachable(false);
        try {
            [$status, $body] = $this->request('POST', "{$base}/counter/gone/increment");
            self::assertSame(503, $status, "an increment the store could not take: {$body}");
            self::assertStringContainsString('try again', $body);
            $this->waitForLog('/PostgreSQL store at .* failed/');
        } finally {
            PersistenceDatabase::setReachable(true);
        }

        $value = null;
        $deadline = microtime(true) + 20.0;
        while ($value === null && microtime(true) < $deadline) {
            [$status, $body] = $this->request('POST', "{$base}/counter/gone/increment");
            if ($status === 200) {
                $value = json_decode($body, true);
            } else {
                self::assertSame(503, $status, $body);
            }
        }
        self::assertSame(['name' => 'gone', 'value' => 3], $value, 'the counter recovered the 2 acknowledged increments; the refused one was never counted');
    }

    public function testUnderLoadAKilledWorkerAReloadAndARestartLoseNoIncrementAndCountNoneTwiceOnSqlite(): void
    {
        $this->underFaults([]);
    }

    public function testUnderLoadAKilledWorkerAReloadAndARestartLoseNoIncrementAndCountNoneTwiceOnPostgresql(): void
    {
        PersistenceDatabase::reset();
        $this->underFaults(['--store=' . PostgresUrl::redact(PersistenceDatabase::config())]);
    }

    public function testAStoreUrlThatIsNotPostgresIsAUsageError(): void
    {
        $process = proc_open([\PHP_BINARY, 'bin/nexus', 'serve', '--no-jit', '--store=mysql://u@h/db'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $stderr = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);

        self::assertSame(2, proc_close($process));
        self::assertStringContainsString('--store takes a PostgreSQL URL', $stderr);
    }

    /**
     * The issue's end-to-end test: with 2 workers, clients increment 50 counters over keep-alive
     * connections while one worker is killed (kill -9), the master reloads (SIGHUP), and the
     * server is stopped (SIGTERM) and started again on the same store. Afterwards each counter
     * is held to what its clients were told: every 200 answered a new value of the counter, so
     * those values are distinct and at most its final value (none lost); and the final value is
     * at most the increments answered 200 plus those whose outcome the client does not know
     * (connection broken, or a 503: the write may have been stored) (none counted twice). With
     * no unknown outcome, each counter equals the number of its 200s.
     *
     * @param list<string> $store
     */
    private function underFaults(array $store): void
    {
        $port = FreePort::get();
        $this->start(['--workers=2', ...$store], $port);
        $master = $this->masterPid();
        $loop = new Loop();
        $began = $loop->now();
        $ledger = new Ledger(static fn(): float => $loop->now() - $began);
        $operations = new OperationSource(self::COUNTERS, [], 20_260_401);
        $clients = $running = [];
        for ($i = 0; $i < self::CLIENTS; ++$i) {
            $clients[] = $client = new LoadClient($loop, "tcp://127.0.0.1:{$port}", $operations, $ledger, 10.0);
            $running[] = $client->start();
        }
        $acked = static fn(): int => $ledger->totals()['counter']['acked'];
        $scenario = $loop->async(function () use ($loop, $acked, $master, $store, $port, $clients): null {
            try {
                $this->faults($loop, $acked, $master, $store, $port);
            } finally {
                // Stopped whatever happened, so that a failed step is reported as itself, not as
                // clients that never finish.
                foreach ($clients as $client) {
                    $client->stop();
                }
            }

            return null;
        });
        $deadline = microtime(true) + 180.0;
        while (!$scenario->isSettled() || array_filter($running, static fn(Future $client): bool => !$client->isSettled()) !== []) {
            self::assertLessThan($deadline, microtime(true), 'the scenario ran for 3 minutes');
            $loop->tick();
        }
        $scenario->await();

        $problems = [];
        $totals = $ledger->totals()['counter'];
        foreach ($operations->counterNames() as $name) {
            $values = $ledger->counterValues[$name] ?? [];
            $unsettled = $ledger->counterUnsettled[$name] ?? 0;
            $final = $this->json('GET', "http://127.0.0.1:{$port}/counter/{$name}")['value'];
            \assert(\is_int($final));
            if (\count(array_unique($values)) !== \count($values)) {
                $problems[] = "{$name}: a value was answered twice (an increment lost and counted again)";
            }
            if ($values !== [] && (min($values) < 1 || max($values) > $final)) {
                $problems[] = "{$name}: answered " . max($values) . " but holds {$final} (acknowledged increments lost)";
            }
            if ($final > \count($values) + $unsettled) {
                $problems[] = "{$name}: holds {$final}, more than its " . \count($values) . " 200s and {$unsettled} unknown outcomes (counted twice)";
            }
            if ($unsettled === 0 && $final !== \count($values)) {
                $problems[] = "{$name}: holds {$final} for " . \count($values) . ' 200s';
            }
        }
        $summary = \sprintf('%d increments answered 200, %d failed (statuses %s), %d unknown (%s)', $totals['acked'], $totals['failed'], json_encode($ledger->failedStatuses()), $totals['unknown'], json_encode($ledger->unknownReasons()));
        self::assertSame([], $problems, $summary . "\n" . file_get_contents($this->stderrFile));
        self::assertGreaterThanOrEqual(4 * self::LOAD_STEP, $totals['acked'], $summary);
    }

    /**
     * Waits, inside the load's loop, until LOAD_STEP more increments were answered 200.
     *
     * @param \Closure(): int $acked
     */
    /**
     * The faults of underFaults(), each after more increments were answered: kill -9 of a worker,
     * a reload, a stop and a start.
     *
     * @param \Closure(): int $acked
     * @param list<string> $store
     */
    private function faults(Loop $loop, \Closure $acked, int $master, array $store, int $port): void
    {
        $this->until($loop, static fn(): bool => $acked() >= self::LOAD_STEP, 'increments answered before the kill');
        $killed = self::children($master)[0] ?? self::fail('no worker to kill');
        posix_kill($killed, \SIGKILL);
        $this->until($loop, static fn(): bool => \count(self::children($master)) === 2 && !\in_array($killed, self::children($master), true), 'the master replaces the killed worker');
        $this->moreLoad($loop, $acked, 'after the kill');

        $before = self::children($master);
        posix_kill($master, \SIGHUP);
        $this->until($loop, static fn(): bool => \count(self::children($master)) === 2 && array_intersect(self::children($master), $before) === [], 'the reload replaces both workers');
        $this->moreLoad($loop, $acked, 'after the reload');

        posix_kill($master, \SIGTERM);
        $this->until($loop, fn(): bool => !proc_get_status($this->process ?? throw new \LogicException('not started'))['running'], 'the server stops');
        $this->kill();
        $this->start(['--workers=2', ...$store], $port);
        $this->moreLoad($loop, $acked, 'after the restart');
    }

    /**
     * @param \Closure(): int $acked
     */
    private function moreLoad(Loop $loop, \Closure $acked, string $when): void
    {
        $mark = $acked();
        $this->until($loop, static fn(): bool => $acked() >= $mark + self::LOAD_STEP, "increments answered {$when}");
    }

    /**
     * Waits for $condition, checking every 50 ms on $loop (the load goes on meanwhile), for at most
     * 60 s.
     *
     * @param \Closure(): bool $condition
     */
    private function until(Loop $loop, \Closure $condition, string $what): void
    {
        $deadline = microtime(true) + 60.0;
        while (!$condition()) {
            if (microtime(true) > $deadline) {
                throw new \RuntimeException("Waited 60 s in vain for {$what}.\n" . file_get_contents($this->stderrFile));
            }
            $pause = new Deferred($loop);
            $loop->delay(0.05, static fn() => $pause->resolve(null));
            $pause->future()->await();
        }
    }

    private function masterPid(): int
    {
        return proc_get_status($this->process ?? throw new \LogicException('not started'))['pid'];
    }

    /**
     * @param list<string> $options
     */
    private function start(array $options, int $port = 0): string
    {
        $command = [\PHP_BINARY, 'bin/nexus', 'serve', "--port={$port}", '--no-jit', '--admin=127.0.0.1:0', "--data-dir={$this->dataDir}", ...$options];
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['file', $this->stderrFile, 'a']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $this->process = $process;
        $this->stdout = $pipes[1];
        stream_set_blocking($pipes[1], false);
        $this->output = '';
        $deadline = microtime(true) + 20.0;
        while (microtime(true) < $deadline) {
            $this->output .= (string) fread($pipes[1], 8192);
            if (preg_match('#on (http://127\.0\.0\.1:\d+)#', $this->output, $match) === 1) {
                return $match[1];
            }
            if (!proc_get_status($process)['running']) {
                break;
            }
            $this->waitForOutput();
        }
        self::fail("The server did not say where it listens. Output: {$this->output}\n" . file_get_contents($this->stderrFile));
    }

    private function kill(): void
    {
        if (!\is_resource($this->process)) {
            return;
        }
        $pid = proc_get_status($this->process)['pid'];
        // The whole pool: its workers and the master (kill -9 of every process), by pid.
        foreach (self::children($pid) as $child) {
            posix_kill($child, \SIGKILL);
        }
        proc_terminate($this->process, \SIGKILL);
        proc_close($this->process);
        $this->process = null;
        if (\is_resource($this->stdout)) {
            fclose($this->stdout);
        }
    }

    /**
     * @return list<int> the pids whose parent is $pid
     */
    private static function children(int $pid): array
    {
        $children = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $stat) {
            // "pid (comm) state ppid ...": comm may hold spaces ("nexus: worker 0"), so read after ')'.
            $line = (string) @file_get_contents($stat);
            $close = strrpos($line, ')');
            if ($close === false) {
                continue;
            }
            $rest = explode(' ', trim(substr($line, $close + 1)));
            if ((int) ($rest[1] ?? 0) === $pid) {
                $children[] = (int) $line;
            }
        }

        return $children;
    }

    private function increment(string $base, string $name, int $times): void
    {
        for ($i = 1; $i <= $times; ++$i) {
            self::assertSame(['name' => $name, 'value' => $i], $this->json('POST', "{$base}/counter/{$name}/increment"));
        }
    }

    /**
     * @return array<mixed>
     */
    private function json(string $method, string $url): array
    {
        [$status, $body] = $this->request($method, $url);
        self::assertSame(200, $status, "{$method} {$url}: {$body}\n" . file_get_contents($this->stderrFile));
        $decoded = json_decode($body, true);
        self::assertIsArray($decoded);

        return $decoded;
    }

    /**
     * @return array{int, string}
     */
    private function request(string $method, string $url): array
    {
        $context = stream_context_create(['http' => ['method' => $method, 'header' => 'Connection: close', 'ignore_errors' => true, 'timeout' => 15.0]]);
        $body = @file_get_contents($url, false, $context);
        self::assertIsString($body, "{$method} {$url} got no response");
        /** @var list<string> $http_response_header */
        $status = (int) explode(' ', $http_response_header[0])[1];

        return [$status, $body];
    }

    private function waitForLog(string $pattern, string $after = ''): void
    {
        $deadline = microtime(true) + 20.0;
        while (microtime(true) < $deadline) {
            $log = (string) file_get_contents($this->stderrFile);
            if ($after !== '') {
                $at = strrpos($log, $after);
                $log = $at === false ? '' : substr($log, $at);
            }
            if (preg_match($pattern, $log) === 1) {
                return;
            }
            $this->waitForOutput();
        }
        self::fail("The log never matched {$pattern}:\n" . file_get_contents($this->stderrFile));
    }

    /**
     * Waits up to 50 ms for the server to write something (a poll with a deadline, not a sleep).
     */
    private function waitForOutput(): void
    {
        if (!\is_resource($this->stdout)) {
            return;
        }
        $read = [$this->stdout];
        $write = $except = null;
        if (@stream_select($read, $write, $except, 0, 50_000) > 0) {
            $this->output .= (string) fread($this->stdout, 8192);
        }
    }
}
