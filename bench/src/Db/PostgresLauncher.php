<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\ServerLauncher;

/**
 * A throwaway PostgreSQL server for the benchmark: initdb into a directory of its own (trust
 * authentication, fsync off), started on a free loopback port. PostgreSQL refuses to run as
 * root, so as root both run as the `postgres` user (through setpriv).
 */
final class PostgresLauncher
{
    public function __construct(private readonly string $directory, private readonly ?string $binDir = null) {}

    /**
     * The bin directory of the newest PostgreSQL installed the Debian way, or null.
     */
    public static function findBinDir(): ?string
    {
        $dirs = glob('/usr/lib/postgresql/*/bin') ?: [];
        usort($dirs, static fn(string $a, string $b): int => version_compare(basename(\dirname($b)), basename(\dirname($a))));
        foreach ($dirs as $dir) {
            if (is_executable("{$dir}/initdb") && is_executable("{$dir}/postgres")) {
                return $dir;
            }
        }

        return null;
    }

    /**
     * @param array<string, string> $overrides server settings that replace the defaults below
     *                                         (the persistence benchmark turns fsync back on)
     */
    public function start(int $maxConnections = 200, array $overrides = []): RunningPostgres
    {
        $bin = $this->binDir ?? self::findBinDir()
            ?? throw new DbBenchException('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb). Install it (Debian): apt-get install -y postgresql');
        $data = "{$this->directory}/data";
        $sockets = "{$this->directory}/sockets";
        foreach ([$this->directory, $sockets] as $dir) {
            if (!is_dir($dir) && !@mkdir($dir, 0o700, true)) {
                throw new DbBenchException("Cannot create {$dir}; check that its parent is writable.");
            }
        }
        $prefix = $this->userPrefix();
        if ($prefix !== []) {
            foreach ([$this->directory, $sockets] as $dir) {
                if (!@chown($dir, 'postgres') || !@chgrp($dir, 'postgres')) {
                    throw new DbBenchException("Cannot give {$dir} to the postgres user; run as root or as a user that owns it.");
                }
            }
        }
        $init = new ManagedProcess(
            'initdb',
            [...$prefix, "{$bin}/initdb", '-D', $data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
            "{$this->directory}/initdb.log",
        );
        $deadline = microtime(true) + 60.0;
        while ($init->running() && microtime(true) < $deadline) {
            usleep(50_000);
        }
        $init->stop();
        if ($init->exitCode() !== 0) {
            throw new DbBenchException("initdb failed (exit {$init->exitCode()}):\n" . $init->logTail());
        }
        $port = ServerLauncher::freePort();
        $settings = [
            'listen_addresses' => '127.0.0.1',
            'unix_socket_directories' => $sockets,
            'port' => (string) $port,
            'max_connections' => (string) $maxConnections,
            'fsync' => 'off',
            'synchronous_commit' => 'off',
            'full_page_writes' => 'off',
            'shared_buffers' => '128MB',
            'logging_collector' => 'off',
            ...$overrides,
        ];
        $command = [...$prefix, "{$bin}/postgres", '-D', $data];
        foreach ($settings as $name => $value) {
            $command[] = '-c';
            $command[] = "{$name}={$value}";
        }
        $process = new ManagedProcess('postgres', $command, "{$this->directory}/postgres.log");
        $server = new RunningPostgres($process, $port, $this->directory, $command);
        $deadline = microtime(true) + 30.0;
        while (microtime(true) < $deadline) {
            if (!$process->running()) {
                $server->stop();

                throw new DbBenchException("PostgreSQL exited at start:\n" . $process->logTail());
            }
            if ($server->ready()) {
                return $server;
            }
            usleep(100_000);
        }
        $server->stop();

        throw new DbBenchException("PostgreSQL did not accept connections on 127.0.0.1:{$port} within 30 s:\n" . $process->logTail());
    }

    /**
     * @return list<string>
     */
    private function userPrefix(): array
    {
        if (posix_geteuid() !== 0) {
            return [];
        }
        if (posix_getpwnam('postgres') === false) {
            throw new DbBenchException('Running as root, but there is no postgres user to run PostgreSQL as (it refuses root). Create it: useradd --system postgres');
        }
        foreach (['/usr/bin/setpriv', '/bin/setpriv'] as $setpriv) {
            if (is_executable($setpriv)) {
                return [$setpriv, '--reuid=postgres', '--regid=postgres', '--init-groups', '--'];
            }
        }

        throw new DbBenchException('Running as root needs setpriv (util-linux) to start PostgreSQL as the postgres user: apt-get install -y util-linux');
    }
}
