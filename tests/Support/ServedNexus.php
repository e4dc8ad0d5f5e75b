<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * `bin/nexus serve` in a child process, for tests that need the real thing (a worker pool, the
 * demo app): started on a free port, asked to stop with SIGTERM and killed if it lingers.
 */
final class ServedNexus
{
    private const ROOT = __DIR__ . '/../..';

    /**
     * @param resource|null $process
     * @param array<int, resource> $pipes
     */
    private function __construct(
        private mixed $process,
        private readonly array $pipes,
        /** http://127.0.0.1:PORT */
        public readonly string $url,
        /** http://127.0.0.1:PORT of the admin listener; null with --admin=off */
        public readonly ?string $admin = null,
    ) {}

    /**
     * @param list<string>          $arguments after "serve" (--port=0 is added)
     * @param array<string, string> $env       variables added to this process's environment
     */
    public static function start(array $arguments, float $timeout = 20.0, array $env = []): self
    {
        $command = [\PHP_BINARY, 'bin/nexus', 'serve', '--port=0', ...$arguments];
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, self::ROOT, $env === [] ? null : $env + getenv());
        if (!\is_resource($process)) {
            throw new \RuntimeException('Could not start ' . implode(' ', $command));
        }
        stream_set_blocking($pipes[1], false);
        stream_set_blocking($pipes[2], false);
        $output = '';
        $deadline = microtime(true) + $timeout;
        while (preg_match('#on (http://127\.0\.0\.1:\d+) \((\d+) worker#', $output, $match) !== 1) {
            if (microtime(true) > $deadline || !proc_get_status($process)['running']) {
                $errors = (string) stream_get_contents($pipes[2]);
                proc_terminate($process, 9);
                proc_close($process);

                throw new \RuntimeException("nexus serve did not say where it listens within {$timeout} s.\n{$output}\n{$errors}");
            }
            $read = [$pipes[1]];
            $write = $except = null;
            @stream_select($read, $write, $except, 0, 50_000);
            $output .= (string) fread($pipes[1], 8192);
        }
        $url = $match[1];
        $admin = null;
        // Unless it is off, the admin listener's line follows at once.
        while (!\in_array('--admin=off', $arguments, true) && preg_match('#^Admin listener on (http://\S+):#m', $output, $adminMatch) !== 1) {
            if (microtime(true) > $deadline || !proc_get_status($process)['running']) {
                $errors = (string) stream_get_contents($pipes[2]);
                proc_terminate($process, 9);
                proc_close($process);

                throw new \RuntimeException("nexus serve did not say where its admin listener is within {$timeout} s.\n{$output}\n{$errors}");
            }
            $read = [$pipes[1]];
            $write = $except = null;
            @stream_select($read, $write, $except, 0, 50_000);
            $output .= (string) fread($pipes[1], 8192);
        }
        if (isset($adminMatch[1])) {
            $admin = $adminMatch[1];
        }
        $served = new self($process, $pipes, $url, $admin);
        // With a pool the master prints its line once the workers are ready to serve.
        return $served;
    }

    /**
     * tcp://127.0.0.1:PORT
     */
    public function address(): string
    {
        return 'tcp://' . substr($this->url, \strlen('http://'));
    }

    /**
     * What the server wrote to stderr so far (its log).
     */
    public function log(): string
    {
        return (string) stream_get_contents($this->pipes[2]);
    }

    public function stop(): void
    {
        if (!\is_resource($this->process)) {
            return;
        }
        proc_terminate($this->process, \SIGTERM);
        $deadline = microtime(true) + 15.0;
        while (proc_get_status($this->process)['running'] && microtime(true) < $deadline) {
            $read = [$this->pipes[1]];
            $write = $except = null;
            @stream_select($read, $write, $except, 0, 50_000);
            fread($this->pipes[1], 8192);
        }
        if (proc_get_status($this->process)['running']) {
            proc_terminate($this->process, \SIGKILL);
        }
        proc_close($this->process);
        $this->process = null;
    }

    public function __destruct()
    {
        $this->stop();
    }
}
