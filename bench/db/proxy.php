<?php

declare(strict_types=1);

/*
 * The latency-injecting TCP proxy of `make bench-db`, on its own:
 *   php bench/db/proxy.php --upstream=tcp://127.0.0.1:5432 [--listen=tcp://127.0.0.1:0] [--delay-ms=1]
 * Prints "listening tcp://HOST:PORT" once it accepts connections; SIGTERM or SIGINT stops it.
 */

use Nexus\Bench\Db\LatencyProxy;
use Nexus\Runtime\Loop;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$options = ['upstream' => '', 'listen' => 'tcp://127.0.0.1:0', 'delay-ms' => '1'];
foreach (array_slice($argv, 1) as $argument) {
    if (preg_match('/^--([a-z-]+)=(.*)$/s', $argument, $match) !== 1 || !array_key_exists($match[1], $options)) {
        fwrite(STDERR, "Unknown option '{$argument}'.\nUsage: php bench/db/proxy.php --upstream=tcp://HOST:PORT [--listen=tcp://127.0.0.1:0] [--delay-ms=1]\n");
        exit(2);
    }
    $options[$match[1]] = $match[2];
}
if ($options['upstream'] === '' || !is_numeric($options['delay-ms']) || (float) $options['delay-ms'] < 0) {
    fwrite(STDERR, "--upstream=tcp://HOST:PORT is required and --delay-ms must be a number >= 0.\n");
    exit(2);
}

$loop = new Loop();
$proxy = new LatencyProxy($loop, $options['upstream'], (float) $options['delay-ms'] / 1000.0, $options['listen']);
foreach ([SIGTERM, SIGINT] as $signal) {
    $loop->onSignal($signal, static function () use ($loop, $proxy): void {
        $proxy->close();
        $loop->stop();
    });
}
echo 'listening ' . $proxy->address() . "\n";
$loop->run();
