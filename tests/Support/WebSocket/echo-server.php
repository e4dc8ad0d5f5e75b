<?php

declare(strict_types=1);

/*
 * A WebSocket echo server built on Nexus's classes (see TestServer), for the npm ws interop test
 * and bench/ws. Prints "listening tcp://127.0.0.1:PORT" once it accepts, and runs until its
 * standard input closes (so it never outlives the process that started it) or SIGTERM.
 *
 *   php tests/Support/WebSocket/echo-server.php [--address=tcp://127.0.0.1:0] [--no-deflate]
 */

use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\WebSocket\TestServer;

require \dirname(__DIR__, 3) . '/vendor/autoload.php';

$options = getopt('', ['address:', 'no-deflate']);
$address = \is_string($options['address'] ?? null) ? $options['address'] : 'tcp://127.0.0.1:0';
$wsOptions = isset($options['no-deflate']) ? new WebSocketOptions(deflate: null) : new WebSocketOptions();

$loop = new Loop();
$loop->setErrorHandler(static function (\Throwable $e): void {
    fwrite(\STDERR, 'echo-server: ' . $e::class . ': ' . $e->getMessage() . "\n");
});
$server = TestServer::echo($loop, $wsOptions, $address);
$stop = static function () use ($loop, $server): void {
    $server->close();
    $loop->stop();
};
$loop->onReadable(\STDIN, static function () use ($stop): void {
    if (fread(\STDIN, 8192) === '' && feof(\STDIN)) {
        $stop();
    }
});
if (\function_exists('pcntl_signal')) {
    $loop->onSignal(\SIGTERM, $stop);
}
fwrite(\STDOUT, 'listening ' . $server->address() . "\n");
$loop->run();
exit(0);
