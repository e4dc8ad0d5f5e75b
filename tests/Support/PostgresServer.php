<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

use Nexus\Postgres\PgConfig;

/**
 * A throwaway PostgreSQL server for the tests: initdb into a fresh temporary directory (trust
 * authentication), postgres on 127.0.0.1 on a free port with durability switched off, one database
 * created. One server is shared by the whole PHPUnit process (shared()); it is stopped and its
 * directory deleted when the process exits.
 *
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` OS user.
 */
final class PostgresServer
{
    public const DATABASE = 'nexus_test';

    private static ?self $shared = null;

    private bool $stopped = false;

    private function __construct(
        private readonly string $dir,
        public readonly int $port,
    ) {}

    public static function shared(): self
    {
        if (self::$shared === null) {
            self::$shared = self::start();
            $server = self::$shared;
            register_shutdown_function(static function () use ($server): void {
                $server->stop();
            });
        }

        return self::$shared;
    }

    public static function start(): self
    {
        $binDir = self::findBinaries();
        $dir = sys_get_temp_dir() . '/nexus-pg-' . bin2hex(random_bytes(6));
        if (!mkdir($dir, 0o700)) {
            throw new \RuntimeException("Could not create the temporary directory {$dir} for the test PostgreSQL server.");
        }
        $asRoot = \function_exists('posix_getuid') && posix_getuid() === 0;
        if ($asRoot && !chown($dir, 'postgres')) {
            throw new \RuntimeException('Running as root, but could not give the test directory to the `postgres` OS user; install postgresql (make setup) or run the tests as a normal user.');
        }
        $server = new self($dir, FreePort::get());
        try {
            $server->run([$binDir . '/initdb', '-D', $dir . '/data', '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], 'initdb');
            $server->run([
                $binDir . '/pg_ctl', '-D', $dir . '/data', '-l', $dir . '/server.log', '-w', '-t', '30',
                '-o', sprintf('-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100', $server->port, $dir),
                'start',
            ], 'pg_ctl start');
            $link = pg_connect($server->config('postgres')->toConnectionString(), \PGSQL_CONNECT_FORCE_NEW);
            if ($link === false) {
                throw new \RuntimeException('The test PostgreSQL server started but refuses connections; see ' . $dir . '/server.log');
            }
            pg_query($link, 'CREATE DATABASE ' . self::DATABASE);
            pg_close($link);
        } catch (\Throwable $e) {
            $server->stop();

            throw $e;
        }

        return $server;
    }

    public function config(string $database = self::DATABASE, ?float $queryTimeout = null): PgConfig
    {
        return new PgConfig(
            host: '127.0.0.1',
            port: $this->port,
            database: $database,
            user: 'postgres',
            connectTimeout: 5.0,
            queryTimeout: $queryTimeout,
            applicationName: 'nexus-tests',
        );
    }

    /**
     * A blocking connection for test setup and checks (never for code under test).
     */
    public function adminLink(): \PgSql\Connection
    {
        $link = pg_connect($this->config()->toConnectionString(), \PGSQL_CONNECT_FORCE_NEW);
        if ($link === false) {
            throw new \RuntimeException('Could not open an admin connection to the test PostgreSQL server.');
        }

        return $link;
    }

    public function stop(): void
    {
        if ($this->stopped) {
            return;
        }
        $this->stopped = true;
        $pidFile = $this->dir . '/data/postmaster.pid';
        if (is_file($pidFile)) {
            $pid = (int) strtok((string) file_get_contents($pidFile), "\n");
            if ($pid > 0 && \function_exists('posix_kill')) {
                // SIGQUIT: immediate shutdown, nothing to keep.
                posix_kill($pid, \SIGQUIT);
                for ($i = 0; $i < 200 && posix_kill($pid, 0); ++$i) {
                    usleep(10_000);
                }
            }
        }
        self::remove($this->dir);
    }

    /**
     * @param list<string> $command
     */
    private function run(array $command, string $what): void
    {
        if (\function_exists('posix_getuid') && posix_getuid() === 0) {
            $command = ['runuser', '-u', 'postgres', '--', ...$command];
        }
        $outputFile = $this->dir . '/command.log';
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $outputFile, 'w'], 2 => ['file', $outputFile, 'a']], $pipes, $this->dir);
        if (!\is_resource($process)) {
            throw new \RuntimeException("Could not run {$what} for the test PostgreSQL server.");
        }
        $code = proc_close($process);
        $output = (string) @file_get_contents($outputFile);
        if ($code !== 0) {
            $log = is_file($this->dir . '/server.log') ? (string) file_get_contents($this->dir . '/server.log') : '';
            throw new \RuntimeException("{$what} failed with exit code {$code}:\n{$output}\n{$log}");
        }
    }

    private static function findBinaries(): string
    {
        $candidates = glob('/usr/lib/postgresql/*/bin/postgres') ?: [];
        rsort($candidates, \SORT_NATURAL);
        foreach ($candidates as $postgres) {
            $dir = \dirname($postgres);
            if (is_executable($dir . '/initdb') && is_executable($dir . '/pg_ctl')) {
                return $dir;
            }
        }

        throw new \RuntimeException('The PostgreSQL server binaries were not found under /usr/lib/postgresql/*/bin; run `make setup` to install them.');
    }

    private static function remove(string $path): void
    {
        if (is_link($path) || is_file($path)) {
            @unlink($path);

            return;
        }
        if (!is_dir($path)) {
            return;
        }
        foreach (scandir($path) ?: [] as $entry) {
            if ($entry !== '.' && $entry !== '..') {
                self::remove($path . '/' . $entry);
            }
        }
        @rmdir($path);
    }
}
