<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Bench\Http\HttpProbe;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\Http\WrkOutputParser;
use Nexus\Bench\Http\WrkResult;
use Nexus\Bench\ProcessTree;

/**
 * `nexus serve --workers=N` under wrk: requests per second, and the CPU wrk and the server took
 * (they share the machine's cores).
 */
final class HttpScaling
{
    public function __construct(
        private readonly string $root,
        private readonly string $tempDir,
        private readonly string $wrk,
    ) {}

    /**
     * @param string $path GET / (cheap: wrk is what runs out of CPU) or /work (about 100 µs of CPU per request)
     *
     * @return array{rps: float, p99_ms: float|null, errors: int, wrk_cpu_s: float, server_cpu_s: float, seconds: int}
     */
    public function measure(int $workers, int $connections, int $seconds, string $path = '/'): array
    {
        $port = ServerLauncher::freePort();
        $server = new ManagedProcess(
            "nexus-{$workers}w",
            [\PHP_BINARY, "{$this->root}/bin/nexus", 'serve', "{$this->root}/bench/workers/cpu-app.php", '--host=127.0.0.1', "--port={$port}", "--workers={$workers}", '--admin=127.0.0.1:0'],
            "{$this->tempDir}/nexus-{$workers}w.log",
        );
        try {
            $deadline = microtime(true) + 15.0;
            while (HttpProbe::get($port, '/') === null) {
                if (microtime(true) > $deadline || !$server->running()) {
                    throw new \RuntimeException("nexus serve --workers={$workers} did not answer within 15 s: " . $server->logTail());
                }
                usleep(50_000);
            }
            $url = "http://127.0.0.1:{$port}{$path}";
            $this->wrk($connections, 2, $url); // warm-up (JIT, connections)
            $cpuBefore = (ProcessTree::cpuSeconds([$server->pid()]) ?? 0.0);
            [$result, $wrkCpu] = $this->wrk($connections, $seconds, $url);
            $serverCpu = (ProcessTree::cpuSeconds([$server->pid()]) ?? 0.0) - $cpuBefore;
        } finally {
            $server->stop();
        }

        return [
            'rps' => $result->rps,
            'p99_ms' => $result->p99Ms,
            'errors' => $result->errors() + $result->timeouts,
            'wrk_cpu_s' => $wrkCpu,
            'server_cpu_s' => $serverCpu,
            'seconds' => $seconds,
        ];
    }

    /**
     * @return array{WrkResult, float} the result and wrk's CPU seconds
     */
    private function wrk(int $connections, int $seconds, string $url): array
    {
        $before = getrusage(1);
        $process = proc_open(
            [$this->wrk, '-t1', "-c{$connections}", "-d{$seconds}s", '--latency', '--timeout', '2s', $url],
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
        $after = getrusage(1);
        return [WrkOutputParser::parse($output), self::cpu($after) - self::cpu($before)];
    }

    /**
     * @param array<mixed>|false $usage from getrusage()
     */
    private static function cpu(array|false $usage): float
    {
        $seconds = 0.0;
        foreach (['ru_utime.tv_sec' => 1.0, 'ru_utime.tv_usec' => 1e-6, 'ru_stime.tv_sec' => 1.0, 'ru_stime.tv_usec' => 1e-6] as $field => $unit) {
            $value = $usage === false ? 0 : ($usage[$field] ?? 0);
            $seconds += (is_numeric($value) ? (float) $value : 0.0) * $unit;
        }

        return $seconds;
    }
}
