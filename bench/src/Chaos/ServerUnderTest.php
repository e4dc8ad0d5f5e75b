<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\ProcessTree;

/**
 * `nexus serve` with the campaign's application and two workers, on a free loopback port; its
 * master's log goes to a file in the campaign's directory. The probes here are blocking and
 * short (the campaign calls them before and after the load, not during it).
 */
final class ServerUnderTest
{
    public readonly int $port;
    private readonly ManagedProcess $master;

    /**
     * @param list<string> $extraOptions more `nexus serve` options
     */
    public function __construct(string $root, string $directory, public readonly int $workers, array $extraOptions = [])
    {
        $this->port = ServerLauncher::freePort();
        $this->master = new ManagedProcess('nexus serve', [
            \PHP_BINARY, "{$root}/bin/nexus", 'serve', "{$root}/bench/chaos/app.php",
            '--host=127.0.0.1', "--port={$this->port}", "--workers={$workers}", '--admin=127.0.0.1:0', ...$extraOptions,
        ], "{$directory}/nexus.log");
    }

    public function address(): string
    {
        return "tcp://127.0.0.1:{$this->port}";
    }

    public function pid(): int
    {
        return $this->master->pid();
    }

    public function running(): bool
    {
        return $this->master->running();
    }

    public function logTail(int $lines = 30): string
    {
        return $this->master->logTail($lines);
    }

    public function logFile(): string
    {
        return $this->master->logFile;
    }

    /**
     * Waits until the master has exactly its workers (no draining or extra ones) and GET /
     * answers 200, for at most $seconds.
     *
     * @throws ChaosException when that does not happen in time
     */
    public function waitUntilSettled(float $seconds): void
    {
        $deadline = microtime(true) + $seconds;
        $steadySince = null;
        while (microtime(true) < $deadline) {
            if (!$this->master->running()) {
                throw new ChaosException("The master process exited:\n" . $this->logTail());
            }
            $steady = \count(ProcessTree::children($this->pid())) === $this->workers && $this->get('/')[0] === 200;
            $steadySince = $steady ? ($steadySince ?? microtime(true)) : null;
            if ($steadySince !== null && microtime(true) - $steadySince >= 1.0) {
                return;
            }
            usleep(100_000);
        }

        throw new ChaosException("The server did not settle with {$this->workers} workers answering GET / within {$seconds} s:\n" . $this->logTail());
    }

    /**
     * One request on a fresh connection: [status, body], or [0, reason] when it fails.
     *
     * @return array{int, string}
     */
    public function get(string $path, float $timeout = 5.0): array
    {
        $socket = @stream_socket_client($this->address(), $errno, $errstr, $timeout);
        if ($socket === false) {
            return [0, "connect: {$errstr}"];
        }
        stream_set_timeout($socket, (int) ceil($timeout));
        fwrite($socket, "GET {$path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        $response = (string) stream_get_contents($socket);
        fclose($socket);
        if (preg_match('/^HTTP\/1\.1 (\d{3})/', $response, $status) !== 1) {
            return [0, 'no HTTP response'];
        }
        $bodyAt = strpos($response, "\r\n\r\n");

        return [(int) $status[1], $bodyAt === false ? '' : substr($response, $bodyAt + 4)];
    }

    /**
     * The distinct errors and warnings the server logged (their message, without time stamp and
     * request details), with how often each came, most frequent first.
     *
     * @return array<string, int>
     */
    public function loggedProblems(int $limit = 12): array
    {
        $counts = [];
        foreach (file($this->master->logFile, \FILE_IGNORE_NEW_LINES) ?: [] as $line) {
            if (preg_match('/^\S+ (ERROR|WARNING|CRITICAL) (.*)$/', $line, $match) !== 1) {
                continue;
            }
            // One entry per kind of problem: numbers, paths and quoted names vary per occurrence.
            $key = $match[1] . ' ' . preg_replace(['/\[.*$/', '/\d+/', '/\/[\w.\/-]+/'], ['', 'N', '/…'], $match[2]);
            $counts[$key] = ($counts[$key] ?? 0) + 1;
        }
        arsort($counts);

        return \array_slice($counts, 0, $limit, true);
    }

    /**
     * @return array{rss: int, descriptors: int, processes: int}
     */
    public function resources(): array
    {
        return [
            'rss' => ProcessTree::rssBytes([$this->pid()]) ?? 0,
            'descriptors' => ProcessTree::openDescriptors([$this->pid()]) ?? 0,
            'processes' => 1 + \count(ProcessTree::children($this->pid())),
        ];
    }

    public function stop(): void
    {
        $this->master->stop(20.0);
    }
}
