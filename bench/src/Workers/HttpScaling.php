<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Bench\CpuTime;
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
        $before = CpuTime::total(CpuTime::CHILDREN);
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
        return [WrkOutputParser::parse($output), CpuTime::total(CpuTime::CHILDREN) - $before];
    }

}
