<?php

declare(strict_types=1);

/*
 * An echo listener in a process that holds so many other descriptors that only two more fit below
 * the number its listener accepts up to (1024 minus the reserve given as the first argument), as
 * a worker does that holds links, logs and database sockets beside its connections. Prints its
 * address, then serves until killed; logs on stderr.
 */

use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Descriptors;
use Nexus\Runtime\Driver\StreamSelectDriver;
use Nexus\Runtime\Loop;
use Psr\Log\LogLevel;

require dirname(__DIR__, 4) . '/vendor/autoload.php';

$reserved = (int) ($argv[1] ?? 32);
$limit = Descriptors::FD_SETSIZE - $reserved;

// Room past 1024, so that the kernel can hand out the descriptors the loop must refuse.
$limits = posix_getrlimit();
$hard = is_array($limits) ? $limits['hard openfiles'] ?? null : null;
$hard = $hard === 'unlimited' ? POSIX_RLIMIT_INFINITY : $hard;
if (!is_numeric($hard) || (int) $hard < 1100 || !posix_setrlimit(POSIX_RLIMIT_NOFILE, min((int) $hard, 4096), (int) $hard)) {
    fwrite(STDERR, "cannot raise RLIMIT_NOFILE past 1100\n");
    exit(1);
}

$loop = new Loop(driver: new StreamSelectDriver()); // the descriptor numbers it refuses are stream_select()'s
$logger = new StderrLogger(LogLevel::INFO);
$listener = Listener::listen($loop, 'tcp://127.0.0.1:0', new ListenOptions(acceptBackoff: 0.05, reservedDescriptors: $reserved), $logger);
// Classes loaded later would open their files on one of the two free descriptors; load them now,
// and the time zone database for the logger's date().
class_exists(Connection::class);
$logger->info('Listening on {address}.', ['address' => $listener->address()]);
$listener->onConnection(static function (Connection $connection): void {
    $connection->onData(static function (string $data) use ($connection): void {
        $connection->write($data);
    });
});

$free = 0;
for ($fd = 0; $fd < $limit; ++$fd) {
    if (@readlink("/proc/self/fd/{$fd}") === false) {
        ++$free;
    }
}
$fillers = [];
for ($i = 0; $i < $free - 2; ++$i) {
    $fillers[] = fopen('/dev/null', 'r'); // each takes the lowest free number
}
fwrite(STDOUT, $listener->address() . "\n");
$loop->run();
