<?php

declare(strict_types=1);

/*
 * WebSocket echo round trips per second through Nexus's classes: an echo server process
 * (tests/Support/WebSocket/echo-server.php: Listener + Handshake + WebSocketConnection) and, in
 * this process, N client connections (WebSocketConnection in the client role), each sending its
 * next message as soon as the echo of the last one arrives. Both run with OPcache and the tracing
 * JIT unless --no-jit. The comparison with Workerman (make bench-ws) comes with the HTTP
 * integration.
 *
 *   php bench/ws/echo.php [--connections=100] [--seconds=5] [--warmup=1] [--size=32] [--binary] [--deflate] [--no-jit]
 *                         [--address=tcp://127.0.0.1:PORT --path=/ws/echo] [--json]
 *
 * With --address it drives a server already running there (make bench-ws: `nexus serve` and
 * Workerman) instead of starting echo-server.php; --json prints the result as one JSON line.
 */

use Nexus\Bench\CommandLine;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\CpuTime;
use Nexus\Tests\Support\WebSocket\ClientConnector;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$settings = ['connections' => '100', 'seconds' => '5', 'warmup' => '1', 'size' => '32', 'address' => '', 'path' => '/'];
$flags = ['binary' => false, 'deflate' => false, 'no-jit' => false, 'child' => false, 'json' => false];
$usage = "Usage: php bench/ws/echo.php [--connections=N] [--seconds=S] [--warmup=S] [--size=BYTES] [--binary] [--deflate] [--no-jit] [--address=tcp://HOST:PORT] [--path=/ws/echo] [--json]\n";
[$flags, $given] = CommandLine::parse(array_slice($argv, 1), $flags, $settings, $usage);
$settings = [...$settings, ...$given];
$jit = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M'];

if (!$flags['child'] && !$flags['no-jit'] && !(bool) ini_get('opcache.enable_cli')) {
    // Re-run this client with the JIT, like the server.
    $command = [PHP_BINARY, ...$jit, __FILE__, ...array_slice($argv, 1), '--child'];
    $process = proc_open($command, [0 => STDIN, 1 => STDOUT, 2 => STDERR], $pipes);
    exit($process === false ? 1 : proc_close($process));
}

$connections = max(1, (int) $settings['connections']);
$seconds = max(1.0, (float) $settings['seconds']);
$warmup = max(0.0, (float) $settings['warmup']);
$size = max(1, (int) $settings['size']);
$binary = $flags['binary'];

$server = null;
$pipes = [];
$address = $settings['address'];
if ($address === '') {
    $server = proc_open(
        [PHP_BINARY, ...($flags['no-jit'] ? [] : $jit), dirname(__DIR__, 2) . '/tests/Support/WebSocket/echo-server.php', ...($flags['deflate'] ? [] : ['--no-deflate'])],
        [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => STDERR],
        $pipes,
    );
    if ($server === false) {
        fwrite(STDERR, "Could not start the echo server.\n");
        exit(1);
    }
    $line = (string) fgets($pipes[1]);
    if (preg_match('#listening (tcp://\S+)#', $line, $match) !== 1) {
        fwrite(STDERR, "The echo server did not start: {$line}\n");
        exit(1);
    }
    $address = $match[1];
}

$loop = new Loop();
$payload = $binary ? random_bytes($size) : str_repeat('x', $size);
$count = 0;
$clients = [];
for ($i = 0; $i < $connections; ++$i) {
    // Each connection answers its own echo: one message in flight per connection.
    $clients[$i] = ClientConnector::connect($loop, $address, static function (string $message) use (&$clients, $i, &$count, $payload, $binary): void {
        ++$count;
        $clients[$i]->send($payload, $binary);
    }, path: $settings['path'], offerDeflate: $flags['deflate']);
}
foreach ($clients as $ws) {
    $ws->send($payload, $binary);
}

$measure = static function (float $duration) use ($loop, &$count): array {
    $done = false;
    $loop->delay($duration, static function () use (&$done): void {
        $done = true;
    });
    $start = hrtime(true);
    $before = $count;
    while (!$done) {
        $loop->tick();
    }

    return [$count - $before, (hrtime(true) - $start) / 1e9];
};
$measure($warmup);
$cpuBefore = CpuTime::seconds();
[$roundTrips, $elapsed] = $measure($seconds);
$cpu = CpuTime::seconds() - $cpuBefore;

foreach ($clients as $ws) {
    $ws->close();
}
if ($server !== null) {
    fclose($pipes[0]);
    fclose($pipes[1]);
    proc_close($server);
}

if ($flags['json']) {
    echo json_encode(['connections' => $connections, 'size' => $size, 'round_trips' => $roundTrips, 'all_round_trips' => $count, 'seconds' => $elapsed, 'rate' => $roundTrips / $elapsed, 'client_cpu' => $cpu / $elapsed]), "\n";
    exit(0);
}
printf(
    "%d connections, %d-byte %s messages%s, %s: %s round trips/s (%d in %.2f s; client CPU %.0f%%)\n",
    $connections,
    $size,
    $binary ? 'binary' : 'text',
    $flags['deflate'] ? ' with permessage-deflate' : '',
    $flags['no-jit'] ? 'no JIT' : 'tracing JIT',
    number_format($roundTrips / $elapsed),
    $roundTrips,
    $elapsed,
    100 * $cpu / $elapsed,
);
