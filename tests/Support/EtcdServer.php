<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * A throwaway etcd (Debian etcd-server, 3.4) on 127.0.0.1, on free ports, with its data in a fresh
 * temp directory (on /dev/shm when there is one). start() returns once it answers (prepare() does
 * not start it); stop() and kill() end it and keep the data, so
 * restart() brings the same cluster back (with its keys and leases, as after an outage);
 * destroy() ends it and removes the directory.
 *
 * binary() is null when etcd is missing and cannot be installed; $why then says what to do.
 */
final class EtcdServer
{
    /** @var resource|null */
    private mixed $process = null;

    private function __construct(
        public readonly string $binary,
        public readonly int $port,
        public readonly int $peerPort,
        public readonly string $dir,
    ) {}

    public static function binary(?string &$why = null): ?string
    {
        return DebianTool::find('etcd', 'etcd-server', $why);
    }

    public static function start(): self
    {
        $server = self::prepare();
        $server->restart();

        return $server;
    }

    /**
     * Its ports and directory, without starting it: restart() starts it (for a test of nodes
     * that start before etcd does).
     */
    public static function prepare(): self
    {
        $why = null;
        $binary = self::binary($why) ?? throw new \RuntimeException("etcd is needed: {$why}");
        // On tmpfs where there is one: etcd syncs its log on every write, and on a disk that other
        // test suites keep busy a sync can take seconds (past the nodes' 5 s timeout on etcd).
        $base = is_dir('/dev/shm') && is_writable('/dev/shm') ? '/dev/shm' : sys_get_temp_dir();
        $dir = $base . '/nexus-etcd-' . bin2hex(random_bytes(4));
        if (!mkdir($dir, 0o700)) {
            throw new \RuntimeException("Could not create the temp directory {$dir} for etcd.");
        }
        return new self($binary, FreePort::get(), FreePort::get(), $dir);
    }

    public function endpoint(): string
    {
        return "http://127.0.0.1:{$this->port}";
    }

    /**
     * Starts it again on the same ports and data (after stop() or kill()).
     */
    public function restart(): void
    {
        if ($this->isRunning()) {
            return;
        }
        if ($this->process !== null) {
            proc_close($this->process);
        }
        $client = "http://127.0.0.1:{$this->port}";
        $peer = "http://127.0.0.1:{$this->peerPort}";
        $command = [
            $this->binary,
            '--name', 'nexus-test',
            '--data-dir', $this->dir . '/data',
            '--listen-client-urls', $client,
            '--advertise-client-urls', $client,
            '--listen-peer-urls', $peer,
            '--initial-advertise-peer-urls', $peer,
            '--initial-cluster', "nexus-test={$peer}",
            '--log-level', 'warn',
            '--logger', 'zap',
        ];
        $log = ['file', $this->dir . '/etcd.log', 'a'];
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => $log, 2 => $log], $pipes);
        if ($process === false) {
            throw new \RuntimeException("Could not start {$this->binary}.");
        }
        $this->process = $process;
        if (!$this->waitUntilReady(20.0)) {
            throw new \RuntimeException("etcd did not answer within 20 s. Its log:\n" . $this->log());
        }
    }

    /**
     * @phpstan-impure
     */
    public function isRunning(): bool
    {
        return $this->process !== null && proc_get_status($this->process)['running'];
    }

    /**
     * Ends it gracefully (SIGTERM), keeping its data.
     */
    public function stop(): void
    {
        $this->signalAndWaitUntilGone(\SIGTERM);
    }

    /**
     * Ends it at once (SIGKILL), as a crash would, keeping its data.
     */
    public function kill(): void
    {
        $this->signalAndWaitUntilGone(\SIGKILL);
    }

    public function destroy(): void
    {
        $this->kill();
        if ($this->process !== null) {
            proc_close($this->process);
            $this->process = null;
        }
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    public function log(): string
    {
        return is_file($this->dir . '/etcd.log') ? (string) file_get_contents($this->dir . '/etcd.log') : '(no log)';
    }

    /**
     * A request to the JSON gateway, blocking: for tests that look at etcd from outside.
     *
     * @param array<string, mixed> $body
     *
     * @return array<mixed>|null null when etcd did not answer
     */
    public function call(string $path, array $body): ?array
    {
        $context = stream_context_create(['http' => [
            'method' => 'POST',
            'header' => "Content-Type: application/json\r\n",
            'content' => json_encode($body, \JSON_THROW_ON_ERROR),
            'timeout' => 5.0,
            'ignore_errors' => true,
        ]]);
        $answer = @file_get_contents($this->endpoint() . $path, false, $context);
        if ($answer === false) {
            return null;
        }
        $json = json_decode($answer, true);

        return \is_array($json) ? $json : null;
    }

    /**
     * The keys under $prefix and their values, read from outside.
     *
     * @return array<string, string>
     */
    public function keys(string $prefix): array
    {
        $end = substr($prefix, 0, -1) . \chr(\ord($prefix[\strlen($prefix) - 1]) + 1);
        $answer = $this->call('/v3/kv/range', ['key' => base64_encode($prefix), 'range_end' => base64_encode($end)]) ?? [];
        $keys = [];
        foreach (\is_array($answer['kvs'] ?? null) ? $answer['kvs'] : [] as $kv) {
            if (\is_array($kv) && \is_string($kv['key'] ?? null)) {
                $keys[(string) base64_decode($kv['key'])] = (string) base64_decode(\is_string($kv['value'] ?? null) ? $kv['value'] : '');
            }
        }

        return $keys;
    }

    private function signalAndWaitUntilGone(int $signal): void
    {
        $process = $this->process;
        if ($process === null || !$this->isRunning()) {
            return;
        }
        proc_terminate($process, $signal);
        $deadline = microtime(true) + 10.0;
        while ($this->isRunning() && microtime(true) < $deadline) {
            usleep(5_000);
        }
        if ($this->isRunning()) {
            proc_terminate($process, \SIGKILL);
        }
    }

    private function waitUntilReady(float $timeout): bool
    {
        $deadline = microtime(true) + $timeout;
        while (microtime(true) < $deadline) {
            if (!$this->isRunning()) {
                return false;
            }
            $answer = $this->call('/v3/kv/range', ['key' => base64_encode('/')]);
            if ($answer !== null && isset($answer['header'])) {
                return true;
            }
            usleep(50_000);
        }

        return false;
    }
}
