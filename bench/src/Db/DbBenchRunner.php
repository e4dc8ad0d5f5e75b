<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\RunningServer;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\ProcessTree;

/**
 * Runs `make bench-db`: PostgreSQL and the latency proxy, the 10-queries baseline, then for each
 * worker count and link a rate search per server and a run of both at their common rate. Call
 * stop() when interrupted: it stops whatever is still running.
 */
final class DbBenchRunner
{
    public const DATABASE = 'bench';

    private ?RunningPostgres $postgres = null;
    private ?ManagedProcess $proxy = null;
    /** @var array<string, RunningServer> */
    private array $servers = [];
    private ?ManagedProcess $generator = null;
    private float $generatorCpuMax = 0.0;

    /**
     * @param \Closure(string): void $progress
     */
    public function __construct(
        private readonly string $root,
        private readonly string $tempDir,
        private readonly DbBenchSettings $settings,
        private readonly \Closure $progress,
        private readonly string $php = \PHP_BINARY,
        private readonly string $nginx = 'nginx',
        private readonly string $phpFpm = 'php-fpm8.2',
    ) {}

    public function run(): DbBenchOutcome
    {
        $s = $this->settings;
        $this->say('==> PostgreSQL: initdb + start (fsync off) in ' . $this->tempDir);
        $postgres = $this->postgres = (new PostgresLauncher("{$this->tempDir}/postgres"))->start(max(100, 32 * max([1, ...$s->workers]) + 20));
        DbSchema::createDatabase($postgres->pdo(), self::DATABASE);
        DbSchema::seed($postgres->pdo(self::DATABASE));
        $statement = $postgres->pdo()->query('SHOW server_version');
        $version = $statement === false ? '?' : (string) $statement->fetchColumn();
        $this->say("    PostgreSQL {$version} on 127.0.0.1:{$postgres->port}; seeded " . json_encode(DbSchema::counts($postgres->pdo(self::DATABASE))));
        $ports = [DbRun::LOOPBACK => $postgres->port];
        if (\in_array(DbRun::PROXY, $s->links, true)) {
            $ports[DbRun::PROXY] = $this->startProxy($postgres->port);
        }
        $baseline = [];
        foreach ($s->links as $link) {
            $baseline[$link] = $this->baseline($ports[$link], $link === DbRun::PROXY ? 40 : 200);
            $this->say(sprintf('    baseline %s: one request\'s 10 queries back to back (blocking PDO, median) %.2f ms', $link, $baseline[$link]));
        }
        $servers = new DbServers($this->root, $this->tempDir, $this->php, $this->nginx, $this->phpFpm, $s->poolSize);
        $runs = [];
        foreach ($s->workers as $workers) {
            foreach ($s->links as $link) {
                /** @var array<string, DbRun> $group */
                $group = [];
                foreach ($s->servers as $name) {
                    $group[$name] = $this->search($servers, $name, $workers, $link, $ports[$link]);
                }
                $rates = array_filter(array_map(static fn(DbRun $r): ?float => $r->bestRate(), $group), static fn(?float $r): bool => $r !== null);
                if ($s->common && \count($rates) === \count($s->servers) && \count($rates) > 1) {
                    $common = (int) min($rates);
                    $this->say("    common rate {$link}, {$workers} worker(s): {$common} req/s");
                    foreach ($group as $name => $run) {
                        $server = $this->servers[$name] ?? null;
                        if ($server !== null) {
                            DbSchema::reset($postgres->pdo(self::DATABASE));
                            $group[$name] = $run->withCommon($this->step($server, (float) $common, "{$name} common", $link));
                        }
                    }
                }
                $this->stopServers();
                array_push($runs, ...array_values($group));
            }
        }

        return new DbBenchOutcome($runs, $baseline, $this->generatorCpuMax, $version);
    }

    public function stop(): void
    {
        $this->generator?->stop();
        $this->generator = null;
        $this->stopServers();
        $this->proxy?->stop();
        $this->proxy = null;
        $this->postgres?->stop();
        $this->postgres = null;
    }

    private function search(DbServers $servers, string $name, int $workers, string $link, int $dbPort): DbRun
    {
        $postgres = $this->postgres ?? throw new \LogicException('PostgreSQL is not running.');
        DbSchema::reset($postgres->pdo(self::DATABASE));
        $this->say("==> {$name}, {$workers} worker(s), {$link}: starting");
        try {
            $server = $servers->start($name, $workers, $dbPort, self::DATABASE);
        } catch (ServerUnavailable $e) {
            $this->say('    not measured: ' . $e->getMessage());

            return DbRun::notMeasured($name, $workers, $link, $e->getMessage());
        }
        $this->servers[$name] = $server;
        $idle = ProcessTree::rssBytes($server->pids());
        $this->say(sprintf('    listening on 127.0.0.1:%d (pids %s), idle RSS %s', $server->port, implode(', ', $server->pids()), self::mb($idle)));
        $search = $this->settings->search($link);
        $steps = [];
        while (($rate = $search->next()) !== null) {
            $step = $this->step($server, (float) $rate, $name, $link);
            $steps[] = $step;
            $search->record($rate, $step->result->held());
        }
        $this->say(sprintf('    %s, %d worker(s), %s: highest rate held %s req/s', $name, $workers, $link, $search->best() ?? 'none'));

        return new DbRun($name, $workers, $link, $steps, null, $idle);
    }

    private function step(RunningServer $server, float $rate, string $label, string $link): DbStep
    {
        $s = $this->settings;
        $out = "{$this->tempDir}/load-" . bin2hex(random_bytes(4)) . '.json';
        $cpuBefore = $server->cpuSeconds();
        $proxyPid = $link === DbRun::PROXY ? $this->proxy?->pid() : null;
        $proxyBefore = $proxyPid === null ? null : ProcessTree::cpuSeconds([$proxyPid]);
        $this->generator = new ManagedProcess('load generator', [
            $this->php, ...ServerLauncher::JIT_INI, "{$this->root}/bench/db/load.php",
            "--port={$server->port}", '--path=/bench', "--rate={$rate}", "--duration={$s->duration}", "--warmup={$s->warmup}",
            "--max-in-flight={$s->maxInFlight}", "--drain={$s->drain}", "--out={$out}",
        ], "{$this->tempDir}/load.log");
        $peak = null;
        $deadline = microtime(true) + $s->warmup + $s->duration + $s->drain + 30.0;
        while ($this->generator->running() && microtime(true) < $deadline) {
            $rss = ProcessTree::rssBytes($server->pids());
            $peak = $rss === null ? $peak : max($peak ?? 0, $rss);
            usleep(200_000);
        }
        $exit = $this->generator->exitCode();
        $log = $this->generator->logTail();
        $this->generator->stop();
        $this->generator = null;
        $cpuAfter = $server->cpuSeconds();
        $proxyAfter = $proxyPid === null ? null : ProcessTree::cpuSeconds([$proxyPid]);
        $crashed = $server->crashed();
        if ($crashed !== null) {
            throw new DbBenchException("{$crashed->name} died during the run:\n" . $crashed->logTail());
        }
        $json = @file_get_contents($out);
        @unlink($out);
        if ($exit !== 0 || !\is_string($json)) {
            throw new DbBenchException("The load generator failed (exit {$exit}):\n{$log}");
        }
        $row = json_decode($json, true, 8, \JSON_THROW_ON_ERROR);
        $result = LoadResult::fromArray(\is_array($row) ? $row : []);
        $this->generatorCpuMax = max($this->generatorCpuMax, $result->cpuShare());
        $step = new DbStep(
            $result,
            $peak,
            $cpuBefore === null || $cpuAfter === null ? null : $cpuAfter - $cpuBefore,
            $proxyBefore === null || $proxyAfter === null ? null : $proxyAfter - $proxyBefore,
        );
        $this->say(sprintf(
            '    %-15s %6d req/s: %s  thr %7.1f  p50 %s  p95 %s  p99 %s  dropped %5.2f%%  errors %d  timeouts %d  conns %d  server CPU %s  RSS %s  gen CPU %.2f%s%s',
            $label,
            (int) $rate,
            $result->held() ? 'held  ' : 'FAILED',
            $result->throughput,
            self::ms($result->p50Ms),
            self::ms($result->p95Ms),
            self::ms($result->p99Ms),
            $result->droppedPercent(),
            $result->errors,
            $result->timeouts,
            $result->connections,
            $step->serverCpuShare() === null ? '-' : sprintf('%.2f', $step->serverCpuShare()),
            self::mb($peak),
            $result->cpuShare(),
            $step->proxyCpuShare() === null ? '' : sprintf('  proxy CPU %.2f', $step->proxyCpuShare()),
            $result->firstError === '' ? '' : '  first error: ' . substr($result->firstError, 0, 160),
        ));

        return $step;
    }

    /**
     * Median milliseconds of one request's 10 queries run back to back with blocking PDO.
     */
    private function baseline(int $port, int $repetitions): float
    {
        $pdo = BenchQueries::pdo('127.0.0.1', $port, self::DATABASE, 'postgres', false);
        $runner = BenchQueries::pdoRunner($pdo);
        for ($i = 0; $i < 5; ++$i) {
            BenchQueries::run($runner);
        }
        $times = [];
        for ($i = 0; $i < $repetitions; ++$i) {
            $start = hrtime(true);
            BenchQueries::run($runner);
            $times[] = (hrtime(true) - $start) / 1e6;
        }

        return Percentiles::of($times, 50.0) ?? 0.0;
    }

    private function startProxy(int $upstreamPort): int
    {
        $port = ServerLauncher::freePort();
        $this->proxy = new ManagedProcess('latency proxy', [
            $this->php, ...ServerLauncher::JIT_INI, "{$this->root}/bench/db/proxy.php",
            "--upstream=tcp://127.0.0.1:{$upstreamPort}", "--listen=tcp://127.0.0.1:{$port}", "--delay-ms={$this->settings->delayMs}",
        ], "{$this->tempDir}/proxy.log");
        $deadline = microtime(true) + 10.0;
        while (microtime(true) < $deadline) {
            if (!$this->proxy->running()) {
                throw new DbBenchException("The latency proxy exited at start:\n" . $this->proxy->logTail());
            }
            $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $errstr, 0.5);
            if ($socket !== false) {
                fclose($socket);
                $this->say("    latency proxy on 127.0.0.1:{$port} -> {$upstreamPort}, {$this->settings->delayMs} ms each way");

                return $port;
            }
            usleep(50_000);
        }

        throw new DbBenchException("The latency proxy did not listen on 127.0.0.1:{$port} within 10 s:\n" . $this->proxy->logTail());
    }

    private function stopServers(): void
    {
        foreach ($this->servers as $server) {
            $server->stop();
        }
        $this->servers = [];
    }

    private function say(string $line): void
    {
        ($this->progress)($line);
    }

    private static function ms(?float $ms): string
    {
        return $ms === null ? '     -' : sprintf('%6.1fms', $ms);
    }

    private static function mb(?int $bytes): string
    {
        return $bytes === null ? '-' : sprintf('%.0f MB', $bytes / 1_048_576);
    }
}
