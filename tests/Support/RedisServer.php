<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

use Nexus\Redis\RedisConfig;

/**
 * A throwaway redis-server on 127.0.0.1, on a free port, in a fresh temp directory, with
 * persistence off. start() returns once it answers PING; stop() ends it and removes the directory.
 */
final class RedisServer
{
    /**
     * @param resource $process
     */
    private function __construct(
        private mixed $process,
        public readonly int $port,
        public readonly string $dir,
        public readonly ?string $password,
    ) {}

    /**
     * @param list<string> $extraArgs more redis-server options, e.g. ['--maxclients', '10']
     */
    public static function start(?string $password = null, array $extraArgs = []): self
    {
        $binary = self::binary();
        $lastError = '';
        for ($attempt = 0; $attempt < 3; ++$attempt) {
            $port = FreePort::get();
            $dir = sys_get_temp_dir() . '/nexus-redis-' . bin2hex(random_bytes(4));
            if (!mkdir($dir, 0o700)) {
                throw new \RuntimeException("Could not create the temp directory {$dir} for redis-server.");
            }
            $command = [
                $binary, '--port', (string) $port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
                '--dir', $dir, '--daemonize', 'no', '--logfile', $dir . '/redis.log', '--protected-mode', 'no',
                ...($password !== null ? ['--requirepass', $password] : []),
                ...$extraArgs,
            ];
            $null = ['file', '/dev/null', 'w'];
            $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => $null, 2 => $null], $pipes);
            if ($process === false) {
                self::removeDir($dir);

                throw new \RuntimeException("Could not start {$binary}.");
            }
            $server = new self($process, $port, $dir, $password);
            if ($server->waitUntilReady(10.0)) {
                return $server;
            }
            $lastError = is_file($dir . '/redis.log') ? (string) file_get_contents($dir . '/redis.log') : '(no log)';
            $server->stop();
        }

        throw new \RuntimeException("redis-server did not answer PING after 3 attempts. Its log:\n{$lastError}");
    }

    public function config(?float $commandTimeout = null): RedisConfig
    {
        return new RedisConfig('127.0.0.1', $this->port, $this->password, commandTimeout: $commandTimeout);
    }

    public function uri(): string
    {
        return 'redis://' . ($this->password !== null ? ':' . rawurlencode($this->password) . '@' : '') . "127.0.0.1:{$this->port}";
    }

    /**
     * @phpstan-impure
     */
    public function isRunning(): bool
    {
        return proc_get_status($this->process)['running'];
    }

    /**
     * Ends the server at once (SIGKILL), as a crash would; stop() still cleans up afterwards.
     */
    public function kill(): void
    {
        if ($this->isRunning()) {
            proc_terminate($this->process, \SIGKILL);
        }
        $deadline = microtime(true) + 5.0;
        while ($this->isRunning() && microtime(true) < $deadline) {
            usleep(5_000);
        }
    }

    public function stop(): void
    {
        if ($this->isRunning()) {
            proc_terminate($this->process, \SIGTERM);
            $deadline = microtime(true) + 5.0;
            while ($this->isRunning() && microtime(true) < $deadline) {
                usleep(5_000);
            }
            if ($this->isRunning()) {
                proc_terminate($this->process, \SIGKILL);
            }
        }
        proc_close($this->process);
        self::removeDir($this->dir);
    }

    private function waitUntilReady(float $timeout): bool
    {
        $deadline = microtime(true) + $timeout;
        while (microtime(true) < $deadline) {
            if (!$this->isRunning()) {
                return false;
            }
            $socket = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $errstr, 0.5);
            if ($socket !== false) {
                stream_set_timeout($socket, 1);
                fwrite($socket, "PING\r\n");
                $reply = (string) fgets($socket);
                fclose($socket);
                // With --requirepass the server answers, but with NOAUTH: it is up all the same.
                if (str_starts_with($reply, '+PONG') || str_starts_with($reply, '-NOAUTH')) {
                    return true;
                }
            }
            usleep(20_000);
        }

        return false;
    }

    private static function binary(): string
    {
        foreach (explode(\PATH_SEPARATOR, (string) getenv('PATH')) as $dir) {
            if ($dir !== '' && is_executable($dir . '/redis-server')) {
                return $dir . '/redis-server';
            }
        }
        foreach (['/usr/bin/redis-server', '/usr/local/bin/redis-server'] as $path) {
            if (is_executable($path)) {
                return $path;
            }
        }

        throw new \RuntimeException('redis-server is not installed, and the Redis tests need a real server: run `make setup` (it installs it).');
    }

    private static function removeDir(string $dir): void
    {
        foreach (glob($dir . '/*') ?: [] as $file) {
            @unlink($file);
        }
        @rmdir($dir);
    }
}
