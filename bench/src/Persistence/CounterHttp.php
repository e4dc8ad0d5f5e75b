<?php

declare(strict_types=1);

namespace Nexus\Bench\Persistence;

use Nexus\Bench\Http\HttpProbe;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\Http\WrkOutputParser;

/**
 * The HTTP case: wrk POSTs /counter/cN/increment over 1,000 counters to `nexus serve
 * --workers=N` (tracing JIT), with the durable demo counters (SQLite or PostgreSQL) or the
 * in-memory counter app (the baseline). Every answer of the durable server came after its
 * increment was committed.
 */
final class CounterHttp
{
    public function __construct(
        private readonly string $root,
        private readonly string $tempDir,
        private readonly string $wrk,
    ) {}

    /**
     * @param list<string> $serveArguments extra arguments of `nexus serve` (an app file, --store, --data-dir)
     *
     * @return array{rps: float, p50_ms: float, p99_ms: float|null, errors: int, non2xx: int}
     */
    public function measure(string $name, int $workers, array $serveArguments, int $connections, int $seconds, int $warmup): array
    {
        $port = ServerLauncher::freePort();
        $server = new ManagedProcess(
            $name,
            [\PHP_BINARY, "{$this->root}/bin/nexus", 'serve', ...$serveArguments, '--host=127.0.0.1', "--port={$port}", "--workers={$workers}", '--admin=127.0.0.1:0'],
            "{$this->tempDir}/{$name}.log",
        );
        try {
            $deadline = microtime(true) + 20.0;
            while (HttpProbe::get($port, '/nothing') === null) {
                if (microtime(true) > $deadline || !$server->running()) {
                    throw new \RuntimeException("{$name} did not answer within 20 s: " . $server->logTail());
                }
                usleep(50_000);
            }
            $url = "http://127.0.0.1:{$port}";
            $this->wrk($connections, $warmup, $url);
            $output = $this->wrk($connections, $seconds, $url);
        } finally {
            $server->stop();
        }
        $result = WrkOutputParser::parse($output);
        $p50 = preg_match('/^\s*50(?:\.0+)?%\s+([0-9.]+)(us|ms|s)\s*$/m', $output, $m) === 1 ? WrkOutputParser::milliseconds($m[1], $m[2]) : $result->avgMs;

        return ['rps' => $result->rps, 'p50_ms' => $p50, 'p99_ms' => $result->p99Ms, 'errors' => $result->errors() + $result->timeouts, 'non2xx' => $result->non2xx];
    }

    private function wrk(int $connections, int $seconds, string $url): string
    {
        $process = proc_open(
            [$this->wrk, '-t1', "-c{$connections}", "-d{$seconds}s", '--latency', '--timeout', '5s', '-s', "{$this->root}/bench/persistence/increment.lua", $url],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        if (!\is_resource($process)) {
            throw new \RuntimeException("Could not start {$this->wrk}.");
        }
        $output = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        $status = proc_close($process);
        if ($status !== 0) {
            throw new \RuntimeException("wrk exited with {$status}: {$output}");
        }

        return $output;
    }
}
