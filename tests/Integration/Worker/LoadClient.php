<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use PHPUnit\Framework\TestCase;

/**
 * Keep-alive HTTP/1.1 clients that send requests back to back until stopped, as a load test
 * does: each client reconnects when the server answers with Connection: close or closes an idle
 * connection. A request that was sent but got no complete response is a failure.
 */
final class LoadClient
{
    /** @var array<int, resource> */
    private array $sockets = [];
    /** @var array<int, string> */
    private array $buffers = [];
    /** @var array<int, bool> */
    private array $outstanding = [];
    /** @var array<int, int> */
    private array $pids = [];
    public int $ok = 0;
    /** @var list<array{?int, string}> failed requests: the pid of the worker the connection was on (null: not known yet), why */
    public array $failures = [];
    /** @var array<int, int> responses per worker pid */
    public array $byPid = [];
    /** @var array<int, float> when the first response from each worker pid arrived (microtime) */
    public array $firstSeen = [];
    /**
     * While this says so, a client reconnects after each response instead of keeping its
     * connection: on a loaded machine one worker may accept every new connection (another not yet
     * woken, or just started), and keep-alive clients would never reach the others.
     *
     * @var (\Closure(): bool)|null
     */
    public ?\Closure $reconnectWhile = null;

    /**
     * @param list<string> $paths client i sends to $paths[i % count]
     */
    public function __construct(
        private readonly string $host,
        private readonly int $port,
        private readonly int $clients,
        private readonly array $paths = ['/pid'],
        private readonly string $method = 'GET',
    ) {
        for ($i = 0; $i < $clients; ++$i) {
            $this->connect($i);
        }
    }

    /**
     * Pumps the clients for $seconds, calling $during once after $after seconds; with $until,
     * stops as soon as it holds (after $during ran), and fails the test when $seconds pass first.
     *
     * @param (\Closure(): void)|null $during
     * @param (\Closure(): bool)|null $until
     */
    public function run(float $seconds, ?\Closure $during = null, float $after = 0.0, ?\Closure $until = null): void
    {
        $end = microtime(true) + $seconds;
        $at = microtime(true) + $after;
        while (($now = microtime(true)) < $end || $until !== null) {
            if ($now >= $end) {
                TestCase::fail("The load ran {$seconds} s and what it waited for did not happen.");
            }
            if ($during !== null && $now >= $at) {
                $during();
                $during = null;
            }
            if ($until !== null && $during === null && $until()) {
                return;
            }
            $read = array_values($this->sockets);
            $write = null;
            $except = null;
            if ($read === [] || @stream_select($read, $write, $except, 0, 20_000) === false) {
                usleep(1000);

                continue;
            }
            foreach ($read as $socket) {
                $this->readable((int) array_search($socket, $this->sockets, true));
            }
        }
    }

    /**
     * @return list<string> the reasons of the failures on connections not known to be on $pid
     */
    public function failuresNotOn(int $pid): array
    {
        $reasons = [];
        foreach ($this->failures as [$on, $reason]) {
            if ($on !== $pid) {
                $reasons[] = $reason;
            }
        }

        return $reasons;
    }

    public function close(): void
    {
        foreach ($this->sockets as $socket) {
            fclose($socket);
        }
        $this->sockets = [];
    }

    private function connect(int $i): void
    {
        $socket = @stream_socket_client("tcp://{$this->host}:{$this->port}", $errno, $errstr, 2.0);
        if ($socket === false) {
            $this->failures[] = [null, "client {$i}: connect failed: {$errstr}"];
            unset($this->sockets[$i]);

            return;
        }
        stream_set_blocking($socket, false);
        $this->sockets[$i] = $socket;
        $this->buffers[$i] = '';
        $this->send($i);
    }

    private function send(int $i): void
    {
        $path = $this->paths[$i % \count($this->paths)];
        $request = $this->method === 'GET'
            ? "GET {$path} HTTP/1.1\r\nHost: {$this->host}\r\n\r\n"
            : "{$this->method} {$path} HTTP/1.1\r\nHost: {$this->host}\r\nContent-Length: 0\r\n\r\n";
        if (@fwrite($this->sockets[$i], $request) !== \strlen($request)) {
            $this->failures[] = [$this->pids[$i] ?? null, "client {$i}: write failed"];
            $this->reconnect($i);

            return;
        }
        $this->outstanding[$i] = true;
    }

    private function readable(int $i): void
    {
        $bytes = @fread($this->sockets[$i], 65536);
        if ($bytes === '' || $bytes === false) {
            if ($this->outstanding[$i] ?? false) {
                $this->failures[] = [$this->pids[$i] ?? null, "client {$i}: connection closed before the response"];
            }
            $this->reconnect($i);

            return;
        }
        $this->buffers[$i] .= $bytes;
        while (($head = strpos($this->buffers[$i], "\r\n\r\n")) !== false) {
            $headers = substr($this->buffers[$i], 0, $head);
            $length = preg_match('/\r\ncontent-length:\s*(\d+)/i', $headers, $m) === 1 ? (int) $m[1] : 0;
            if (\strlen($this->buffers[$i]) < $head + 4 + $length) {
                return;
            }
            $body = substr($this->buffers[$i], $head + 4, $length);
            $this->buffers[$i] = substr($this->buffers[$i], $head + 4 + $length);
            $this->outstanding[$i] = false;
            if (!str_starts_with($headers, 'HTTP/1.1 200')) {
                $this->failures[] = [$this->pids[$i] ?? null, "client {$i}: " . strtok($headers, "\r\n")];
            } else {
                ++$this->ok;
                $decoded = json_decode($body, true);
                if (\is_array($decoded) && \is_int($decoded['pid'] ?? null)) {
                    $this->pids[$i] = $decoded['pid'];
                    $this->byPid[$decoded['pid']] = ($this->byPid[$decoded['pid']] ?? 0) + 1;
                    $this->firstSeen[$decoded['pid']] ??= microtime(true);
                }
            }
            if (preg_match('/\r\nconnection:\s*close/i', $headers) === 1 || ($this->reconnectWhile !== null && ($this->reconnectWhile)())) {
                $this->reconnect($i);

                return;
            }
            $this->send($i);
        }
    }

    private function reconnect(int $i): void
    {
        if (isset($this->sockets[$i])) {
            fclose($this->sockets[$i]);
        }
        $this->outstanding[$i] = false;
        unset($this->pids[$i]);
        $this->connect($i);
    }
}
