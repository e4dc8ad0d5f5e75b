<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Admin;

use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\PostgresServer;
use Nexus\Tests\Support\Promtool;
use Nexus\Tests\Support\ServedNexus;
use PHPUnit\Framework\TestCase;

/**
 * `nexus serve --admin` end to end: a real `bin/nexus serve` with two workers, a known workload
 * through its HTTP port, and the master's admin listener, which must count exactly that over
 * both workers, stay answering while a worker is stuck, and refuse a taken port clearly.
 *
 * @phpstan-type Frame array{headline: array{workers: int, workersUp: int}, workers: list<array{pid: int}>, actors: array{nodes: list<array{path: string, worker: string, kind: string, mailbox: int|null}>}}
 */
final class ServeAdminTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';
    private const APP = 'tests/Integration/Admin/Fixture/workload-app.php';

    private ?ServedNexus $served = null;
    /** @var list<int> */
    private array $stopped = [];

    protected function tearDown(): void
    {
        foreach ($this->stopped as $pid) {
            posix_kill($pid, \SIGCONT);
        }
        $this->served?->stop();
    }

    public function testAKnownWorkloadOverTwoWorkersGivesExactlyThoseCounts(): void
    {
        $served = $this->serve();
        $n = 12;
        $m = 4;
        $k = 3;
        for ($i = 0; $i < $n; ++$i) {
            self::assertSame(200, self::http('GET', "{$served->url}/hello")[0]);
        }
        for ($i = 0; $i < $m; ++$i) {
            self::assertSame(200, self::http('POST', "{$served->url}/counters/c{$i}")[0]);
        }
        self::assertSame(200, self::http('POST', "{$served->url}/dead/{$k}")[0]);
        self::assertSame(404, self::http('GET', "{$served->url}/nowhere/42")[0]);
        // Asks of the pool's one tally actor, each on a new connection, which the kernel gives to
        // either worker: with 24 of them, some cross the mesh (6 all landed on its owner once).
        for ($i = 0; $i < 24; ++$i) {
            self::assertSame(200, self::http('POST', "{$served->url}/tally")[0]);
        }

        $body = $this->waitForMetrics((string) $served->admin, [
            "http_server_request_duration_seconds_count{http_request_method=\"GET\",http_route=\"/hello\",http_response_status_code=\"200\"} {$n}",
            "http_server_request_duration_seconds_count{http_request_method=\"POST\",http_route=\"/counters/{name}\",http_response_status_code=\"200\"} {$m}",
            'http_server_request_duration_seconds_count{http_request_method="POST",http_route="/dead/{count}",http_response_status_code="200"} 1',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="",http_response_status_code="404"} 1',
            // M counters, the tally, and the dead-letter target and its watcher, both stopped since.
            'nexus_actors_started_total{scope="user"} ' . ($m + 3),
            'nexus_actors_stopped_total{scope="user"} 2',
            "nexus_dead_letters_total{reason=\"recipient terminated\"} {$k}",
            // Each counter was told two increments.
            'nexus_actor_messages_processed_total{kind="counter"} ' . (2 * $m),
            'nexus_ask_timeouts_total 0',
            'nexus_actor_messages_processed_total{kind="tally"} 24',
            'nexus_worker_up{worker="0"} 1',
            'nexus_worker_up{worker="1"} 1',
            'nexus_worker_restarts_total{worker="0"} 0',
            'http_server_active_requests 0',
        ]);
        self::assertMatchesRegularExpression('/^http_server_open_connections\{worker="1"\} \d+$/m', $body);
        self::assertMatchesRegularExpression('/^process_memory_usage_bytes\{worker="0"\} [1-9]\d+$/m', $body);
        self::assertMatchesRegularExpression('/^process_cpu_time_seconds_total\{worker="1"\} [0-9.e-]+$/m', $body);
        // Every batch sent between the workers arrived and was acknowledged (acknowledgements
        // leave a few milliseconds later: wait until the links are quiet).
        $deadline = microtime(true) + 10.0;
        do {
            $sums = self::meshSums($body);
            if ($sums['unacknowledged'] === 0 || microtime(true) > $deadline) {
                break;
            }
            $this->waitABit();
            $body = self::http('GET', "{$served->admin}/metrics")[1];
        } while (true);
        self::assertGreaterThan(0, $sums['frames_sent_total'], 'a tally ask crossed the mesh');
        self::assertSame($sums['frames_sent_total'], $sums['frames_received_total']);
        self::assertSame($sums['sent_bytes_total'], $sums['received_bytes_total']);
        self::assertSame(0, $sums['unacknowledged']);
        $live = 0;
        preg_match_all('/^nexus_actors_live\{worker="[01]",scope="user"\} (\d+)$/m', $body, $rows);
        foreach ($rows[1] as $value) {
            $live += (int) $value;
        }
        self::assertSame($m + 1, $live, 'the live user actors of both workers add up to the M counters and the tally');

        $promtool = DebianTool::find('promtool', 'prometheus', $why);
        if ($promtool === null) {
            self::markTestSkipped("The counts are right; promtool is needed to validate the exposition: {$why}");
        }
        [$code, $output] = Promtool::check($promtool, $body);
        self::assertSame(0, $code, "promtool check metrics: {$output}");
    }

    public function testTheDashboardFeedShowsEveryWorkersActorsAndReadinessChecksTheWorkers(): void
    {
        $served = $this->serve();
        self::assertSame(200, self::http('POST', "{$served->url}/counters/feed-counter")[0]);

        // A frame with the counter, from both workers: on a loaded machine a worker may miss the
        // 1 s a stats query waits for it, and that frame counts it as down.
        $frame = $this->waitForFrame((string) $served->admin, static function (array $frame): bool {
            if ($frame['headline']['workersUp'] !== 2) {
                return false;
            }
            foreach ($frame['actors']['nodes'] as $node) {
                if ($node['path'] === '/user/feed-counter') {
                    return true;
                }
            }

            return false;
        });
        self::assertSame(2, $frame['headline']['workers']);
        self::assertSame(2, $frame['headline']['workersUp']);
        $workers = array_unique(array_column(array_filter($frame['actors']['nodes'], static fn(array $node): bool => $node['path'] === '/system/nexus-admin-view'), 'worker'));
        sort($workers);
        self::assertSame(['0', '1'], $workers, "every worker's tree is on the feed");
        $counter = array_values(array_filter($frame['actors']['nodes'], static fn(array $node): bool => $node['path'] === '/user/feed-counter'))[0];
        self::assertSame('counter', $counter['kind']);
        self::assertSame(0, $counter['mailbox']);
        $raw = json_decode(self::http('GET', "{$served->admin}/feed.json")[1], true);
        self::assertIsArray($raw);
        self::assertArrayHasKey('cluster', $raw);
        self::assertNull($raw['cluster'], 'nothing about a cluster when not clustered');
        self::assertStringNotContainsString('nexus_cluster_', self::http('GET', "{$served->admin}/metrics")[1]);

        $deadline = microtime(true) + 30.0;
        do {
            [$status, $body] = self::http('GET', "{$served->admin}/readyz");
        } while ($status !== 200 && microtime(true) < $deadline); // a loaded worker may miss one query
        self::assertSame(200, $status, $body);
        self::assertSame('{"status":"ready","checks":{"workers":{"ok":true,"detail":"2/2 up"}}}', $body);
    }

    public function testAStuckWorkerCannotWedgeTheAdminListener(): void
    {
        $served = $this->serve();
        $frame = $this->waitForFrame((string) $served->admin, static fn(array $frame): bool => $frame['headline']['workersUp'] === 2);
        $pid = $frame['workers'][1]['pid'];
        posix_kill($pid, \SIGSTOP);
        $this->stopped[] = $pid;

        $started = microtime(true);
        $body = $this->waitForMetrics((string) $served->admin, ['nexus_worker_up{worker="1"} 0', 'nexus_worker_up{worker="0"} 1']);
        self::assertStringContainsString('nexus_worker_stats_missing_total{worker="1"} ', $body);
        self::assertLessThan(10.0, microtime(true) - $started);
        [$status, $ready] = self::http('GET', "{$served->admin}/readyz");
        self::assertSame(503, $status, $ready);
        self::assertStringContainsString('did not answer within 1 s', $ready);

        posix_kill($pid, \SIGCONT);
        $this->stopped = [];
        $this->waitForMetrics((string) $served->admin, ['nexus_worker_up{worker="1"} 1']);
    }

    public function testReadinessChecksThePostgresqlStoreWhenItIsTheStore(): void
    {
        $postgres = PostgresServer::start();
        try {
            $this->served = ServedNexus::start([self::APP, '--workers=2', '--no-jit', '--store=' . PostgresUrl::redact($postgres->config())]);
            $admin = (string) $this->served->admin;
            $ready = '';
            $deadline = microtime(true) + 20.0;
            do {
                [$status, $ready] = self::http('GET', "{$admin}/readyz");
                if ($status === 200) {
                    break;
                }
                $this->waitABit();
            } while (microtime(true) < $deadline);
            self::assertSame(200, $status, $ready);
            self::assertMatchesRegularExpression('/"store":\{"ok":true,"detail":"PostgreSQL 127\.0\.0\.1:\d+ answered SELECT 1 in [0-9.]+ ms"\}/', $ready);

            $postgres->stop();
            [$status, $ready] = self::http('GET', "{$admin}/readyz");
            self::assertSame(503, $status, $ready);
            self::assertStringContainsString('"store":{"ok":false', $ready);
        } finally {
            $postgres->stop();
        }
    }

    public function testDurableCountersInOneProcessWithTheDefaultSqliteStoreShowTheirPersistedEvents(): void
    {
        $dir = sys_get_temp_dir() . '/nexus-obs-' . bin2hex(random_bytes(4));
        try {
            $this->served = ServedNexus::start(['--workers=1', '--no-jit', "--data-dir={$dir}"]);
            $served = $this->served;
            for ($i = 1; $i <= 5; ++$i) {
                self::assertSame(200, self::http('POST', "{$served->url}/counter/solo/increment")[0]);
            }
            $body = $this->waitForMetrics((string) $served->admin, [
                'nexus_persistence_events_total 5',
                'nexus_persistence_recoveries_total{outcome="completed"} 1',
                'nexus_persistence_write_failures_total 0',
            ]);
            self::assertMatchesRegularExpression('/^nexus_persistence_write_duration_seconds_bucket\{le="\+Inf"\} [1-5]$/m', $body);
        } finally {
            $this->served?->stop();
            $this->served = null;
            exec('rm -rf ' . escapeshellarg($dir));
        }
    }

    public function testDurableCountersOverTwoWorkersShowTheirPersistedEventsAndTheStoresPool(): void
    {
        $postgres = PostgresServer::start();
        try {
            $this->served = ServedNexus::start(['--workers=2', '--no-jit', '--store=' . PostgresUrl::redact($postgres->config())]);
            $served = $this->served;
            $increments = ['a' => 4, 'b' => 3, 'c' => 2];
            foreach ($increments as $name => $times) {
                for ($i = 1; $i <= $times; ++$i) {
                    [$status, $body] = self::http('POST', "{$served->url}/counter/{$name}/increment");
                    self::assertSame(200, $status, $body);
                    self::assertSame(['name' => $name, 'value' => $i], json_decode($body, true));
                }
            }
            $body = $this->waitForMetrics((string) $served->admin, [
                'nexus_persistence_events_total ' . array_sum($increments),
                'nexus_persistence_write_failures_total 0',
                // Each counter read its (empty) journal once, on the worker that hosts it.
                'nexus_persistence_recoveries_total{outcome="completed"} ' . \count($increments),
                'nexus_persistence_recoveries_total{outcome="failed"} 0',
            ]);
            preg_match('/^nexus_persistence_write_duration_seconds_count (\d+)$/m', $body, $transactions);
            self::assertGreaterThanOrEqual(1, (int) ($transactions[1] ?? 0), $body);
            self::assertLessThanOrEqual(array_sum($increments), (int) ($transactions[1] ?? 0), 'group commit: at most one transaction per increment');
            // The store's pool, per worker: the journal reads of the recoveries ran through it.
            self::assertMatchesRegularExpression('/^db_client_connection_max\{worker="[01]",db_system="postgresql",db_client_connection_pool_name="nexus-store"\} \d+$/m', $body);
            preg_match_all('/^db_client_operation_duration_seconds_count\{db_system="postgresql",db_client_connection_pool_name="nexus-store"\} (\d+)$/m', $body, $reads);
            self::assertCount(1, $reads[1], $body);
            self::assertGreaterThanOrEqual(1, (int) $reads[1][0]);
            self::assertStringNotContainsString('secret', $body);
            // The dashboard's pools panel: the store's pool of each worker.
            [, $feed] = self::http('GET', "{$served->admin}/feed.json");
            $frame = json_decode($feed, true);
            self::assertIsArray($frame, $feed);
            self::assertIsArray($frame['pools'] ?? null, $feed);
            $workers = [];
            foreach ($frame['pools'] as $pool) {
                self::assertIsArray($pool);
                if (($pool['name'] ?? null) === 'nexus-store') {
                    self::assertSame('postgresql', $pool['kind'] ?? null);
                    self::assertIsInt($pool['max'] ?? null);
                    $workers[] = $pool['worker'] ?? null;
                }
            }
            sort($workers);
            self::assertSame(['0', '1'], $workers, $feed);

            $promtool = DebianTool::find('promtool', 'prometheus', $why);
            if ($promtool === null) {
                self::markTestSkipped("The counts are right; promtool is needed to validate the exposition: {$why}");
            }
            [$code, $output] = Promtool::check($promtool, $body);
            self::assertSame(0, $code, "promtool check metrics: {$output}");
        } finally {
            $this->served?->stop();
            $this->served = null;
            $postgres->stop();
        }
    }

    public function testATakenAdminPortIsAClearError(): void
    {
        $taken = stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($taken);
        $address = (string) stream_socket_get_name($taken, false);
        foreach (['1', '2'] as $workers) {
            $process = proc_open([\PHP_BINARY, 'bin/nexus', 'serve', self::APP, '--port=0', "--workers={$workers}", '--no-jit', "--admin={$address}"], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
            self::assertIsResource($process);
            $stderr = (string) stream_get_contents($pipes[2]);
            stream_get_contents($pipes[1]);
            self::assertSame(1, proc_close($process), $stderr);
            self::assertStringContainsString("Could not open the admin listener on {$address}", $stderr);
            self::assertStringContainsString('--admin=off', $stderr);
        }
        fclose($taken);
    }

    public function testTheAdminListenerNeverTakesTheApplicationsPort(): void
    {
        $process = proc_open([\PHP_BINARY, 'bin/nexus', 'serve', '--port=8123', '--no-jit', '--admin=127.0.0.1:8123'], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $stderr = (string) stream_get_contents($pipes[2]);
        stream_get_contents($pipes[1]);
        self::assertNotSame(0, proc_close($process));
        self::assertStringContainsString("never shares the application's port 8123", $stderr);
    }

    /**
     * The mesh metrics summed over both workers.
     *
     * @return array<string, int>
     */
    private static function meshSums(string $body): array
    {
        $sums = [];
        foreach (['frames_sent_total', 'frames_received_total', 'sent_bytes_total', 'received_bytes_total', 'unacknowledged'] as $metric) {
            preg_match_all("/^nexus_mesh_{$metric}\\{worker=\"[01]\",peer=\"[01]\"\\} (\\d+)$/m", $body, $values);
            self::assertCount(2, $values[1], "nexus_mesh_{$metric} for both workers:\n{$body}");
            $sums[$metric] = array_sum(array_map('intval', $values[1]));
        }

        return $sums;
    }

    private function serve(): ServedNexus
    {
        $this->served = ServedNexus::start([self::APP, '--workers=2', '--no-jit']);
        self::assertNotNull($this->served->admin, 'nexus serve announced its admin listener');

        return $this->served;
    }

    /**
     * @param list<string> $lines
     */
    private function waitForMetrics(string $admin, array $lines): string
    {
        $body = '';
        $missing = $lines;
        $deadline = microtime(true) + 20.0;
        while (microtime(true) < $deadline) {
            [$status, $body] = self::http('GET', "{$admin}/metrics");
            self::assertSame(200, $status);
            $missing = array_values(array_filter($lines, static fn(string $line): bool => !str_contains("\n" . $body, "\n{$line}\n")));
            if ($missing === []) {
                return $body;
            }
            $this->waitABit();
        }
        self::fail("/metrics never showed:\n" . implode("\n", $missing) . "\n--- last body ---\n{$body}");
    }

    /**
     * @param \Closure(Frame): bool $condition
     *
     * @return Frame
     */
    private function waitForFrame(string $admin, \Closure $condition): array
    {
        $frame = [];
        $deadline = microtime(true) + 20.0;
        while (microtime(true) < $deadline) {
            [, $body] = self::http('GET', "{$admin}/feed.json");
            $decoded = json_decode($body, true);
            self::assertIsArray($decoded, $body);
            /** @var Frame $frame the feed's frame (Feed::frame()), the parts these tests read */
            $frame = $decoded;
            if ($condition($frame)) {
                return $frame;
            }
            $this->waitABit();
        }
        self::fail('The feed never showed what was expected; last frame: ' . json_encode($frame));
    }

    /** Lets the server move on between polls (a select on nothing, bounded by the caller's deadline). */
    private function waitABit(): void
    {
        $read = $write = $except = [];
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsArray($pair);
        $read = [$pair[0]];
        @stream_select($read, $write, $except, 0, 50_000);
        fclose($pair[0]);
        fclose($pair[1]);
    }

    /**
     * @return array{int, string}
     */
    private static function http(string $method, string $url): array
    {
        $context = stream_context_create(['http' => ['method' => $method, 'ignore_errors' => true, 'timeout' => 10.0, 'header' => "Connection: close\r\n"]]);
        $body = @file_get_contents($url, false, $context);
        self::assertIsString($body, "{$method} {$url} failed");
        $status = $http_response_header[0] ?? '';

        return [(int) (explode(' ', $status)[1] ?? 0), $body];
    }
}
