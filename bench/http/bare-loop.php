<?php

declare(strict_types=1);

/*
 * The ceiling for hello-server.php: a bare stream_select loop that answers each "\r\n\r\n" it
 * sees with a fixed response, without parsing anything. Same usage: bench/http/bare-loop.php [port]
 * It answers every path alike (GET /hello/{name} gets "Hello, world!" too), so it is the limit for
 * GET / only. The listen backlog is 511, as in Nexus (ListenOptions), not PHP's default of 32.
 */

$port = (int) ($argv[1] ?? 8081);
$context = stream_context_create(['socket' => ['backlog' => 511]]);
$server = stream_socket_server("tcp://127.0.0.1:{$port}", $errno, $errstr, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $context);
if ($server === false) {
    fwrite(STDERR, "Could not listen on port {$port}: {$errstr}\n");
    exit(1);
}
stream_set_blocking($server, false);
$response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\nHello, world!";
/** @var array<int, resource> $clients */
$clients = [];
/** @var array<int, string> $pending */
$pending = [];
fwrite(STDOUT, "tcp://127.0.0.1:{$port}\n");
// @phpstan-ignore while.alwaysTrue (serves until killed)
while (true) {
    $read = $clients;
    $read[] = $server;
    $write = null;
    $except = null;
    if (@stream_select($read, $write, $except, null) === false) {
        continue;
    }
    foreach ($read as $stream) {
        if ($stream === $server) {
            while (($client = @stream_socket_accept($server, 0)) !== false) {
                stream_set_blocking($client, false);
                $clients[(int) $client] = $client;
                $pending[(int) $client] = '';
            }

            continue;
        }
        $id = (int) $stream;
        $data = @fread($stream, 65_536);
        if ($data === false || ($data === '' && feof($stream))) {
            fclose($stream);
            unset($clients[$id], $pending[$id]);

            continue;
        }
        $buffer = $pending[$id] . $data;
        $count = substr_count($buffer, "\r\n\r\n");
        if ($count > 0) {
            @fwrite($stream, str_repeat($response, $count));
            $buffer = substr($buffer, strrpos($buffer, "\r\n\r\n") + 4);
        }
        $pending[$id] = $buffer;
    }
}
