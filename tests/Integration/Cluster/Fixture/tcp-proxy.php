<?php

declare(strict_types=1);

/*
 * A TCP proxy for the link-cut test: php tcp-proxy.php LISTEN_PORT TARGET_PORT COUNT forwards
 * 127.0.0.1:LISTEN_PORT+i to 127.0.0.1:TARGET_PORT+i for i < COUNT. SIGUSR1 makes it stop
 * forwarding (connections stay open, bytes wait: a network that went silent), SIGUSR2 forward
 * again. It prints "ready" once it listens and runs until SIGTERM.
 */

[, $listen, $target, $count] = $argv + [null, null, null, '1'];
$listen = (int) $listen;
$target = (int) $target;
$count = (int) $count;
$forwarding = true;
$running = true;
pcntl_async_signals(true);
pcntl_signal(\SIGUSR1, static function () use (&$forwarding): void {
    $forwarding = false;
});
pcntl_signal(\SIGUSR2, static function () use (&$forwarding): void {
    $forwarding = true;
});
pcntl_signal(\SIGTERM, static function () use (&$running): void {
    $running = false;
});

$servers = [];
for ($i = 0; $i < $count; ++$i) {
    $server = stream_socket_server('tcp://127.0.0.1:' . ($listen + $i), $errno, $errstr);
    if ($server === false) {
        fwrite(\STDERR, "cannot listen on {$listen}+{$i}: {$errstr}\n");
        exit(1);
    }
    stream_set_blocking($server, false);
    $servers[$i] = $server;
}
echo "ready\n";

/** @var array<int, array{resource, resource, string}> $pipes by id: from, to, pending bytes */
$pipes = [];
/** @var array<int, true> $closed pipes closed on this turn */
$closed = [];
while ($running) {
    $read = array_values($servers);
    if ($forwarding) {
        foreach ($pipes as [$from]) {
            $read[] = $from;
        }
    }
    $write = [];
    if ($forwarding) {
        foreach ($pipes as [, $to, $pending]) {
            if ($pending !== '') {
                $write[] = $to;
            }
        }
    }
    $except = null;
    if (@stream_select($read, $write, $except, 0, 50_000) === false) {
        continue;
    }
    foreach ($servers as $i => $server) {
        if (!in_array($server, $read, true)) {
            continue;
        }
        $client = @stream_socket_accept($server, 0);
        if ($client === false) {
            continue;
        }
        $upstream = @stream_socket_client('tcp://127.0.0.1:' . ($target + $i), $errno, $errstr, 2.0);
        if ($upstream === false) {
            fclose($client);

            continue;
        }
        stream_set_blocking($client, false);
        stream_set_blocking($upstream, false);
        $pipes[(int) $client] = [$client, $upstream, ''];
        $pipes[(int) $upstream] = [$upstream, $client, ''];
    }
    $closed = [];
    foreach ($pipes as $id => [$from, $to]) {
        if (isset($closed[$id])) {
            continue; // closed with its other half
        }
        if (in_array($from, $read, true)) {
            $bytes = @fread($from, 65_536);
            if ($bytes === '' || $bytes === false) {
                if (feof($from)) {
                    $peer = (int) $to;
                    @fclose($from);
                    @fclose($to);
                    $closed[$id] = $closed[$peer] = true;

                    continue;
                }
            } else {
                $pipes[$id][2] .= $bytes;
            }
        }
        if ($forwarding && $pipes[$id][2] !== '' && !isset($closed[(int) $to])) {
            $written = @fwrite($to, $pipes[$id][2]);
            if (is_int($written) && $written > 0) {
                $pipes[$id][2] = substr($pipes[$id][2], $written);
            }
        }
    }
    foreach ($closed as $id => $_) {
        unset($pipes[$id]);
    }
    $closed = [];
}
