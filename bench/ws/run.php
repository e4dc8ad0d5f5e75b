<?php

declare(strict_types=1);

/*
 * `make bench-ws`: Nexus's WebSocket routes side by side with Workerman's WebSocket server doing
 * the same echo (../shared/peers, MIT, benchmark only), in one run:
 *
 * - echo round trips/s over 100 connections, one message in flight each, rounds alternating
 *   between the two servers (the machine is shared: the median of the rounds is reported, with
 *   the server's CPU time per round trip, which load disturbs less);
 * - broadcast deliveries/s to 1,000 clients in one room: Nexus with 2 workers (Topics across
 *   them), Workerman with 1 worker (it has no broadcast across its processes without its
 *   separate Channel server);
 * - PHP heap per idle connection, and echo latency on one more connection while the idle ones
 *   are open, at 900 idle connections on each server (Workerman's select loop takes 1,024
 *   descriptors at most);
 * - the same at 10,000 idle connections on one Nexus worker (the epoll driver), from a client
 *   process of its own on an epoll loop (bench/ws/idle-client.php), and then one message on each
 *   of the 10,000 at once: every one must get its own echo.
 *
 * A table on stdout, progress on stderr, JSON in bench/results/ws.json, and the bench:ws section
 * of docs/performance.md with docs/img/ws-bench.svg.
 *
 *   php bench/ws/run.php [--quick] [--no-report] [--rounds=5] [--seconds=5] [--idle=900] [--many=10000] [--peers=DIR]
 */

use Nexus\Bench\CommandLine;
use Nexus\Bench\Environment;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\WebSocket\RawClient;
use Nexus\Bench\WebSocket\WsReport;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$settings = [
    'rounds' => '5',
    'seconds' => '5',
    'connections' => '100',
    'clients' => '1000',
    'idle' => '900',
    'many' => '10000',
    'peers' => '',
    'json' => "{$root}/bench/results/ws.json",
    'doc' => "{$root}/docs/performance.md",
    'svg' => "{$root}/docs/img/ws-bench.svg",
    'command' => 'make bench-ws',
    'only' => '',
];
$flags = ['quick' => false, 'smoke' => false, 'no-report' => false];
$usage = "Usage: php bench/ws/run.php [--quick] [--no-report] [--rounds=N] [--seconds=S] [--connections=N] [--clients=N] [--idle=N] [--many=N] [--peers=DIR] [--json=FILE] [--doc=FILE] [--svg=FILE]\n"
    . "  --quick      2 rounds of 2 s, 300 idle connections (2,000 on one worker), no report\n"
    . "  --many       idle connections on one Nexus worker (epoll) for the latency and memory at scale\n"
    . "  --smoke      one round of everything at tiny counts (checks that it works), no report\n"
    . "  --peers      the folder holding Workerman (default: ../shared/peers from the project)\n"
    . "  --only       echo, broadcast or idle: that part alone (no report)\n";
[$flags, $given] = CommandLine::parse(array_slice($argv, 1), $flags, $settings, $usage);
$settings = [...$settings, ...$given];
if ($flags['smoke']) {
    $settings = [...$settings, 'rounds' => '1', 'seconds' => '1', 'connections' => '10', 'clients' => '40', 'idle' => '30', 'many' => '50'];
    $flags['no-report'] = true;
}
if ($flags['quick']) {
    $settings = [...$settings, 'rounds' => '2', 'seconds' => '2', 'idle' => '300', 'many' => '2000'];
    $flags['no-report'] = true;
}
$only = $settings['only'];
if (!in_array($only, ['', 'echo', 'broadcast', 'idle'], true)) {
    fwrite(STDERR, "--only takes echo, broadcast or idle.\n{$usage}");
    exit(2);
}
if ($only !== '') {
    $flags['no-report'] = true;
}
$rounds = max(1, (int) $settings['rounds']);
$seconds = max(1.0, (float) $settings['seconds']);
$connections = max(1, (int) $settings['connections']);
$clients = max(2, (int) $settings['clients']);
$idle = max(10, (int) $settings['idle']);
$many = max(10, (int) $settings['many']);
$jit = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M'];
$temp = sys_get_temp_dir() . '/nexus-bench-ws-' . getmypid();
@mkdir($temp, 0o755, true);

$peers = $settings['peers'];
foreach ([$peers, "{$root}/../shared/peers", "{$root}/../../shared/peers"] as $candidate) {
    if ($candidate !== '' && is_file("{$candidate}/workerman/src/Worker.php")) {
        $peers = (string) realpath($candidate);
        break;
    }
}
if (!is_file("{$peers}/workerman/src/Worker.php")) {
    fwrite(STDERR, "Workerman is not in ../shared/peers; give its folder with --peers=DIR.\n");
    exit(1);
}

$progress = static function (string $line): void {
    fwrite(STDERR, '[bench-ws] ' . $line . "\n");
};

/** @var list<ManagedProcess> $running */
$running = [];
/** @var list<int> $strays Workerman worker processes, killed by pid at the end if their master left them */
$strays = [];
$stopAll = static function () use (&$running, &$strays): void {
    foreach ($running as $process) {
        $process->stop(5.0);
    }
    $running = [];
    foreach ($strays as $pid) {
        if (posix_kill($pid, 0)) {
            posix_kill($pid, \SIGKILL);
        }
    }
    $strays = [];
};
register_shutdown_function($stopAll);

$waitForPort = static function (ManagedProcess $process, int $port): void {
    $deadline = microtime(true) + 20.0;
    while (microtime(true) < $deadline) {
        $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, 0.2);
        if ($socket !== false) {
            fclose($socket);

            return;
        }
        if (!$process->running()) {
            break;
        }
        usleep(50_000);
    }

    throw new RuntimeException("{$process->name} did not listen on port {$port} within 20 s:\n" . $process->logTail());
};

$startNexus = static function (int $workers) use ($root, $temp, &$running, $waitForPort): int {
    $port = ServerLauncher::freePort();
    $process = new ManagedProcess("nexus ({$workers} worker" . ($workers > 1 ? 's' : '') . ')', [PHP_BINARY, "{$root}/bin/nexus", 'serve', "{$root}/bench/ws/app.php", '--host=127.0.0.1', "--port={$port}", "--workers={$workers}", '--admin=127.0.0.1:0'], "{$temp}/nexus-{$port}.log");
    $running[] = $process;
    $waitForPort($process, $port);

    return $port;
};

$startWorkerman = static function (string $mode) use ($root, $temp, $jit, $peers, &$running, $waitForPort): int {
    $port = ServerLauncher::freePort();
    $process = new ManagedProcess("workerman ({$mode})", [PHP_BINARY, ...$jit, "{$root}/bench/ws/workerman-echo.php", 'start', (string) $port, '1', $mode, $peers], "{$temp}/workerman-{$port}.log");
    $running[] = $process;
    $waitForPort($process, $port);

    return $port;
};

/**
 * @return array{int, int} the worker's PHP heap in bytes and its process id
 */
$memoryOf = static function (string $server, int $port) use (&$strays): array {
    if ($server === 'nexus') {
        $body = @file_get_contents("http://127.0.0.1:{$port}/bench/memory", false, stream_context_create(['http' => ['timeout' => 10.0]]));
        $data = is_string($body) ? json_decode($body, true) : null;
        if (!is_array($data) || !is_int($data['bytes'] ?? null) || !is_int($data['pid'] ?? null)) {
            throw new RuntimeException("GET /bench/memory on port {$port} failed: " . var_export($body, true));
        }

        return [$data['bytes'], $data['pid']];
    }
    $client = RawClient::open($port, '/') ?? throw new RuntimeException("Workerman on port {$port} refused a connection.");
    $client->sendText('__memory');
    [$bytes, $pid] = array_map('intval', explode(' ', $client->receive()));
    $client->close();
    $strays[] = $pid;

    return [$bytes, $pid];
};

$cpuOf = static function (int $pid): float {
    $stat = @file_get_contents("/proc/{$pid}/stat");
    if (!is_string($stat)) {
        return NAN;
    }
    $fields = explode(' ', substr($stat, (int) strrpos($stat, ')') + 2));

    return ((int) $fields[11] + (int) $fields[12]) / 100.0; // utime + stime, in clock ticks of 10 ms
};

$median = static function (array $values): float {
    $floats = array_map(static fn(mixed $value): float => is_numeric($value) ? (float) $value : 0.0, array_values($values));
    sort($floats);
    $count = count($floats);
    $middle = intdiv($count, 2);

    return $count === 0 ? NAN : ($count % 2 === 1 ? $floats[$middle] : ($floats[$middle - 1] + $floats[$middle]) / 2);
};

$results = [
    'date' => date('Y-m-d'),
    'php' => PHP_VERSION,
    'cores' => Environment::detect()->cores,
    'cpu' => Environment::detect()->cpu,
    'load' => sys_getloadavg()[0] ?? null,
    'settings' => ['rounds' => $rounds, 'seconds' => $seconds, 'connections' => $connections, 'clients' => $clients, 'idle' => $idle, 'many' => $many],
];

try {
    // ---- echo -------------------------------------------------------------------------------
    if ($only === '' || $only === 'echo') {
        $progress("echo: {$rounds} rounds of {$seconds} s per server, {$connections} connections");
        $servers = ['nexus' => $startNexus(1), 'workerman' => $startWorkerman('echo')];
        $pids = ['nexus' => $memoryOf('nexus', $servers['nexus'])[1], 'workerman' => $memoryOf('workerman', $servers['workerman'])[1]];
        $echo = ['nexus' => [], 'workerman' => []];
        for ($round = 0; $round < $rounds; ++$round) {
            $order = $round % 2 === 0 ? ['nexus', 'workerman'] : ['workerman', 'nexus'];
            foreach ($order as $server) {
                $before = $cpuOf($pids[$server]);
                $output = shell_exec(implode(' ', array_map('escapeshellarg', [
                    PHP_BINARY, ...$jit, "{$root}/bench/ws/echo.php", '--child', '--json',
                    "--address=tcp://127.0.0.1:{$servers[$server]}", '--path=' . ($server === 'nexus' ? '/ws/echo' : '/'),
                    "--connections={$connections}", "--seconds={$seconds}", '--warmup=' . ($flags['smoke'] ? '0' : '1'),
                ])));
                $cpu = $cpuOf($pids[$server]) - $before;
                $run = is_string($output) ? json_decode(trim($output), true) : null;
                if (!is_array($run) || !is_numeric($run['rate'] ?? null)) {
                    throw new RuntimeException("The echo client failed against {$server}: " . var_export($output, true));
                }
                $all = $run['all_round_trips'] ?? 0;
                $run['server_cpu_us_per_round_trip'] = $cpu / max(1, is_numeric($all) ? (int) $all : 0) * 1e6;
                $echo[$server][] = $run;
                $progress(sprintf('  round %d %-9s %8s round trips/s, server CPU %.1f µs per round trip', $round + 1, $server, number_format((float) $run['rate']), $run['server_cpu_us_per_round_trip']));
            }
        }
        foreach ($echo as $server => $runs) {
            $rates = array_map(static fn(array $run): float => (float) $run['rate'], $runs);
            $results['echo'][$server] = [
                'median' => $median($rates),
                'min' => min($rates),
                'max' => max($rates),
                'cpu_us' => $median(array_map(static fn(array $run): float => (float) $run['server_cpu_us_per_round_trip'], $runs)),
                'runs' => $runs,
            ];
        }
        $stopAll();
    }

    // ---- broadcast ----------------------------------------------------------------------------
    if ($only === '' || $only === 'broadcast') {
        $broadcastRounds = max(1, min(3, $rounds));
        $perProcess = intdiv($clients, 2);
        foreach (['nexus' => ['Nexus, 2 workers', '/ws/chat/bench'], 'workerman' => ['Workerman, 1 worker', '/']] as $server => [$label, $path]) {
            $progress("broadcast: {$label}, {$clients} clients in one room, {$broadcastRounds} rounds of {$seconds} s");
            $port = $server === 'nexus' ? $startNexus(2) : $startWorkerman('broadcast');
            if ($server === 'workerman') {
                $memoryOf('workerman', $port); // learns its worker's pid, to be sure it goes
            }
            $rates = [];
            $closedTotal = 0;
            for ($round = 0; $round < $broadcastRounds; ++$round) {
                $processes = [];
                foreach ([true, false] as $publishes) {
                    $command = [PHP_BINARY, ...$jit, "{$root}/bench/ws/broadcast-client.php", "--address=tcp://127.0.0.1:{$port}", "--path={$path}", "--connections={$perProcess}"];
                    if ($publishes) {
                        $command[] = '--publish';
                    }
                    $process = proc_open($command, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['file', "{$temp}/broadcast-client.log", 'a']], $pipes);
                    if (!is_resource($process)) {
                        throw new RuntimeException('Could not start the broadcast client.');
                    }
                    $processes[] = [$process, $pipes];
                }
                foreach ($processes as [, $pipes]) {
                    $ready = (string) fgets($pipes[1]);
                    if (!str_starts_with($ready, 'ready ')) {
                        throw new RuntimeException("A broadcast client did not connect: {$ready}" . (string) @file_get_contents("{$temp}/broadcast-client.log"));
                    }
                }
                foreach ($processes as [, $pipes]) {
                    fwrite($pipes[0], "go {$seconds} " . ($flags['smoke'] ? '0' : '1') . "\n");
                }
                $deliveries = 0.0;
                foreach ($processes as [$process, $pipes]) {
                    $line = (string) fgets($pipes[1]);
                    $run = json_decode(trim($line), true);
                    if (!is_array($run) || !is_numeric($run['received'] ?? null) || !is_numeric($run['seconds'] ?? null)) {
                        throw new RuntimeException("A broadcast client failed: {$line}");
                    }
                    $deliveries += (float) $run['received'] / (float) $run['seconds'];
                    $closedTotal += is_numeric($run['closed'] ?? null) ? (int) $run['closed'] : 0;
                    fclose($pipes[0]);
                    fclose($pipes[1]);
                    proc_close($process);
                }
                $rates[] = $deliveries;
                $progress(sprintf('  round %d %s deliveries/s', $round + 1, number_format($deliveries)));
            }
            $results['broadcast'][$server] = ['label' => $label, 'median' => $median($rates), 'min' => min($rates), 'max' => max($rates), 'closed' => $closedTotal];
            $stopAll();
        }
    }

    // ---- idle connections: memory, latency, the loop's limit ----------------------------------
    $variants = $only === '' || $only === 'idle' ? ['nexus' => false, 'nexus-deflate' => true, 'workerman' => false] : [];
    foreach ($variants as $variant => $deflate) {
        $server = $variant === 'workerman' ? 'workerman' : 'nexus';
        $progress("idle: {$idle} idle connections on {$variant}");
        $port = $server === 'nexus' ? $startNexus(1) : $startWorkerman('echo');
        $path = $server === 'nexus' ? '/ws/echo' : '/';
        $memoryOf($server, $port);
        [$before] = $memoryOf($server, $port);
        $open = [];
        for ($i = 0; $i < $idle; ++$i) {
            $open[] = RawClient::open($port, $path, $deflate) ?? throw new RuntimeException("{$variant} refused idle connection {$i}.");
        }
        [$after] = $memoryOf($server, $port);
        $entry = ['idle' => $idle, 'bytes_per_connection' => ($after - $before) / $idle];
        if ($variant !== 'nexus-deflate') {
            $probe = RawClient::open($port, $path) ?? throw new RuntimeException("{$variant} refused the probe connection.");
            $latencies = [];
            for ($i = 0, $count = $flags['smoke'] ? 200 : 2000; $i < $count; ++$i) {
                $start = hrtime(true);
                $probe->sendText('ping');
                $probe->receive();
                $latencies[] = (hrtime(true) - $start) / 1e6;
            }
            sort($latencies);
            $entry += ['p50_ms' => $latencies[intdiv(count($latencies), 2)], 'p99_ms' => $latencies[intdiv(count($latencies) * 99, 100)], 'max_ms' => end($latencies)];
            $probe->close();
        }
        foreach ($open as $client) {
            $client->close();
        }
        $results['idle'][$variant] = $entry;
        $progress(sprintf('  %.0f bytes per idle connection%s', $entry['bytes_per_connection'], isset($entry['p99_ms']) ? sprintf(', echo p50 %.2f ms, p99 %.2f ms', $entry['p50_ms'], $entry['p99_ms']) : ''));
        $stopAll();
    }

    // ---- many idle connections on one worker (epoll) ------------------------------------------
    if ($only === '' || $only === 'idle') {
        $progress("idle: {$many} idle connections on one Nexus worker, then echo on one more and on each of them");
        $port = $startNexus(1);
        $memoryOf('nexus', $port);
        [$before] = $memoryOf('nexus', $port);
        $client = proc_open(
            [PHP_BINARY, ...$jit, "{$root}/bench/ws/idle-client.php", "--address=tcp://127.0.0.1:{$port}", '--path=/ws/echo', "--connections={$many}", '--probes=' . ($flags['smoke'] ? '200' : '2000')],
            [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['file', "{$temp}/idle-client.log", 'a']],
            $pipes,
        );
        if (!is_resource($client)) {
            throw new RuntimeException('Could not start bench/ws/idle-client.php.');
        }
        $ready = (string) fgets($pipes[1]);
        if (preg_match('/^ready (\d+) ([\d.]+)/', $ready, $match) !== 1) {
            fclose($pipes[0]);
            fclose($pipes[1]);
            $status = proc_close($client);
            $why = trim((string) @file_get_contents("{$temp}/idle-client.log"));
            if ($status !== 3) {
                throw new RuntimeException("The idle client did not open its {$many} connections: {$ready}{$why}");
            }
            // Exit status 3: no epoll here, or the descriptor limit cannot be raised. Reported, not measured.
            $results['idle']['nexus-many'] = ['idle' => $many, 'skipped' => $why];
            $progress("  not measured: {$why}");
        } else {
            [$after] = $memoryOf('nexus', $port);
            fwrite($pipes[0], "go\n");
            $line = (string) fgets($pipes[1]);
            fclose($pipes[0]);
            fclose($pipes[1]);
            proc_close($client);
            $run = json_decode(trim($line), true);
            if (!is_array($run) || !is_numeric($run['p99_ms'] ?? null) || !is_numeric($run['all_answered'] ?? null)) {
                throw new RuntimeException("The idle client failed: {$line}" . (string) @file_get_contents("{$temp}/idle-client.log"));
            }
            $results['idle']['nexus-many'] = ['idle' => $many, 'bytes_per_connection' => ($after - $before) / $many, ...$run];
            $progress(sprintf(
                '  %.0f bytes per idle connection; opened in %.1f s; echo p50 %.2f ms, p99 %.2f ms, max %.2f ms; %d of %d answered a message each in %.2f s',
                ($after - $before) / $many,
                (float) $match[2],
                is_numeric($run['p50_ms'] ?? null) ? (float) $run['p50_ms'] : NAN,
                (float) $run['p99_ms'],
                is_numeric($run['max_ms'] ?? null) ? (float) $run['max_ms'] : NAN,
                (int) $run['all_answered'],
                $many,
                is_numeric($run['all_seconds'] ?? null) ? (float) $run['all_seconds'] : NAN,
            ));
        }
        $stopAll();
    }
} finally {
    $stopAll();
}

$json = json_encode($results, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n";
@mkdir(dirname($settings['json']), 0o755, true);
file_put_contents($settings['json'], $json);
$report = new WsReport($results);
echo $report->table();
if (!$flags['no-report']) {
    $problem = $report->writeInto($settings['doc'], $settings['svg'], $settings['command']);
    if ($problem !== null) {
        fwrite(STDERR, "bench-ws: {$problem}\n");
        exit(1);
    }
    $progress("wrote {$settings['doc']} (bench:ws) and {$settings['svg']}");
}
