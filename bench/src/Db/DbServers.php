<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Bench\Http\HttpProbe;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\RunningServer;
use Nexus\Bench\Http\ServerLauncher;

/**
 * Starts the two servers of `make bench-db` against a given PostgreSQL address, with N workers:
 * `nexus serve bench/db/nexus-app.php --workers=N`, and nginx + php-fpm (pm = static, N
 * children) running bench/db/fpm-app.php through the launcher of the HTTP benchmark.
 */
final class DbServers
{
    public const NEXUS = 'nexus';
    public const FPM = 'php-fpm';
    public const ALL = [self::NEXUS, self::FPM];

    public function __construct(
        private readonly string $root,
        private readonly string $tempDir,
        private readonly string $php = \PHP_BINARY,
        private readonly string $nginx = 'nginx',
        private readonly string $phpFpm = 'php-fpm8.2',
        private readonly int $nexusPoolSize = 16,
    ) {}

    /**
     * @throws ServerUnavailable when this server cannot run with that many workers here
     */
    public function start(string $name, int $workers, int $dbPort, string $database = 'bench'): RunningServer
    {
        $env = [
            'NEXUS_BENCH_DB_HOST' => '127.0.0.1',
            'NEXUS_BENCH_DB_PORT' => (string) $dbPort,
            'NEXUS_BENCH_DB_NAME' => $database,
            'NEXUS_BENCH_DB_USER' => 'postgres',
            'NEXUS_BENCH_DB_POOL' => (string) $this->nexusPoolSize,
        ];

        return match ($name) {
            self::NEXUS => $this->nexus($workers, $env),
            self::FPM => (new ServerLauncher($this->root, $this->tempDir, $this->php, $this->nginx, $this->phpFpm, "{$this->root}/bench/db/fpm-app.php", $workers, $env))
                ->start(ServerLauncher::NGINX_FPM),
            default => throw new \InvalidArgumentException("Unknown server '{$name}'; known: " . implode(', ', self::ALL) . '.'),
        };
    }

    /**
     * @param array<string, string> $env
     */
    private function nexus(int $workers, array $env): RunningServer
    {
        foreach ($env as $name => $value) {
            putenv("{$name}={$value}");
        }
        $port = ServerLauncher::freePort();
        $log = "{$this->tempDir}/nexus-{$workers}w-{$port}.log";
        $process = new ManagedProcess(
            self::NEXUS,
            [$this->php, "{$this->root}/bin/nexus", 'serve', "{$this->root}/bench/db/nexus-app.php", '--host=127.0.0.1', "--port={$port}", "--workers={$workers}", '--admin=127.0.0.1:0'],
            $log,
        );
        $server = new RunningServer(self::NEXUS, $port, [$process]);
        $deadline = microtime(true) + 20.0;
        while (microtime(true) < $deadline) {
            if ($server->crashed() !== null) {
                $server->stop();
                $tail = $process->logTail();
                if ($workers > 1 && stripos($tail, 'worker') !== false) {
                    throw new ServerUnavailable("nexus serve --workers={$workers} is not available yet: " . trim($tail));
                }

                throw new DbBenchException("nexus serve exited at start:\n{$tail}");
            }
            $response = HttpProbe::get($port, '/', 2.0);
            if ($response !== null) {
                if ($response['status'] === 200) {
                    return $server;
                }
                $server->stop();

                throw new DbBenchException("nexus answered GET / with {$response['status']}: " . substr($response['body'], 0, 300) . "\nLog:\n" . $process->logTail());
            }
            usleep(50_000);
        }
        $server->stop();

        throw new DbBenchException("nexus did not answer GET / on 127.0.0.1:{$port} within 20 s:\n" . $process->logTail());
    }
}
