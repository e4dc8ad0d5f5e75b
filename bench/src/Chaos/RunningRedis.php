<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

use Nexus\Bench\Files;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\ServerLauncher;

/**
 * A redis-server of the fault campaign: loopback, a free port, its own directory, and an
 * append-only file synced on every write (appendfsync always), so that what it acknowledged
 * survives interrupt() and relaunch(). stop() ends it and deletes its directory.
 */
final class RunningRedis
{
    private ManagedProcess $process;
    private bool $stopped = false;

    /**
     * @param list<string> $command
     */
    private function __construct(private readonly array $command, public readonly int $port, private readonly string $directory)
    {
        $this->process = new ManagedProcess('redis-server', $command, "{$directory}/redis.out");
    }

    public static function start(string $directory): self
    {
        $binary = null;
        foreach (explode(\PATH_SEPARATOR, (string) getenv('PATH') . ':/usr/bin:/usr/local/bin') as $dir) {
            if ($dir !== '' && is_executable("{$dir}/redis-server")) {
                $binary = "{$dir}/redis-server";

                break;
            }
        }
        if ($binary === null) {
            throw new ChaosException('redis-server is not installed; install it (Debian): apt-get install -y redis-server');
        }
        if (!is_dir($directory) && !@mkdir($directory, 0o700, true)) {
            throw new ChaosException("Cannot create {$directory} for redis-server.");
        }
        $port = ServerLauncher::freePort();
        $redis = new self([
            $binary, '--port', (string) $port, '--bind', '127.0.0.1', '--dir', $directory, '--save', '',
            '--appendonly', 'yes', '--appendfsync', 'always', '--daemonize', 'no', '--protected-mode', 'no',
        ], $port, $directory);
        $deadline = microtime(true) + 10.0;
        while (!$redis->ready()) {
            if (!$redis->process->running() || microtime(true) > $deadline) {
                $log = $redis->process->logTail();
                $redis->stop();

                throw new ChaosException("redis-server did not answer PING within 10 s:\n{$log}");
            }
            usleep(20_000);
        }

        return $redis;
    }

    public function uri(): string
    {
        return "redis://127.0.0.1:{$this->port}";
    }

    public function running(): bool
    {
        return !$this->stopped && $this->process->running();
    }

    /**
     * Asks it to shut down (SIGTERM: it finishes the append-only file) and returns at once.
     */
    public function interrupt(): void
    {
        if ($this->process->running()) {
            @posix_kill($this->process->pid(), \SIGTERM);
        }
    }

    /**
     * Starts it again on the same port and directory once it is down; returns at once.
     */
    public function relaunch(): void
    {
        if ($this->stopped || $this->process->running()) {
            throw new ChaosException('redis-server can be relaunched only after it stopped (interrupt()).');
        }
        $this->process->stop();
        $this->process = new ManagedProcess('redis-server', $this->command, "{$this->directory}/redis.out");
    }

    /**
     * Whether it answers PING now.
     */
    public function ready(): bool
    {
        $socket = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $errstr, 0.5);
        if ($socket === false) {
            return false;
        }
        stream_set_timeout($socket, 1);
        fwrite($socket, "PING\r\n");
        $reply = (string) fgets($socket);
        fclose($socket);

        return str_starts_with($reply, '+PONG');
    }

    /**
     * The members of a set, read over a plain blocking socket (the checker's own view).
     *
     * @return array<string, true>
     */
    public function members(string $key): array
    {
        $socket = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $errstr, 2.0)
            ?: throw new ChaosException("Cannot reach redis-server on port {$this->port}: {$errstr}");
        stream_set_timeout($socket, 10);
        fwrite($socket, \sprintf("*2\r\n$8\r\nSMEMBERS\r\n$%d\r\n%s\r\n", \strlen($key), $key));
        $header = (string) fgets($socket);
        if (!str_starts_with($header, '*')) {
            throw new ChaosException("SMEMBERS {$key} answered {$header}");
        }
        $members = [];
        for ($i = (int) substr($header, 1); $i > 0; --$i) {
            $length = (int) substr((string) fgets($socket), 1);
            $value = '';
            while (\strlen($value) < $length + 2) {
                $chunk = fread($socket, max(1, $length + 2 - \strlen($value)));
                if ($chunk === false || $chunk === '') {
                    throw new ChaosException("redis-server closed the connection during SMEMBERS {$key}.");
                }
                $value .= $chunk;
            }
            $members[substr($value, 0, $length)] = true;
        }
        fclose($socket);

        return $members;
    }

    public function stop(): void
    {
        if (!$this->stopped) {
            $this->stopped = true;
            $this->process->stop();
            Files::removeTree($this->directory);
        }
    }
}
