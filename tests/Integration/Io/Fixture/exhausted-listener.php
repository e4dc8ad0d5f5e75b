<?php

declare(strict_types=1);

/*
 * An echo listener that can open only two more descriptors: its soft RLIMIT_NOFILE is lowered
 * after it starts listening. Prints its address, then serves until killed; logs on stderr.
 */

use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;
use Psr\Log\LogLevel;

require dirname(__DIR__, 4) . '/vendor/autoload.php';

$loop = new Loop();
$logger = new StderrLogger(LogLevel::INFO);
$listener = Listener::listen($loop, 'tcp://127.0.0.1:0', new ListenOptions(acceptBackoff: 0.05), $logger);
// Out of descriptors nothing can be loaded lazily any more (an autoloaded class, the time zone
// database for the logger's date(): PHP 8.2 crashes on that one), so log once beforehand, as a
// server does when it starts.
$logger->info('Listening on {address}.', ['address' => $listener->address()]);
$listener->onConnection(static function (Connection $connection): void {
    $connection->onData(static function (string $data) use ($connection): void {
        $connection->write($data);
    });
});

$open = static function (int $fd): bool {
    return @readlink("/proc/self/fd/{$fd}") !== false;
};
$limit = 0;
$free = 0;
while ($free < 2) {
    if (!$open($limit)) {
        ++$free;
    }
    ++$limit;
}
$limits = posix_getrlimit();
$hard = is_array($limits) ? $limits['hard openfiles'] ?? null : null;
$hard = $hard === 'unlimited' ? POSIX_RLIMIT_INFINITY : $hard;
if (!is_numeric($hard) || !posix_setrlimit(POSIX_RLIMIT_NOFILE, $limit, (int) $hard)) {
    fwrite(STDERR, "cannot lower RLIMIT_NOFILE\n");
    exit(1);
}
fwrite(STDOUT, $listener->address() . "\n");
$loop->run();
