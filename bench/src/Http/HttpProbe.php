<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * A tiny blocking HTTP/1.0 client to check that a server is up and answers a route correctly.
 */
final class HttpProbe
{
    /**
     * @return array{status: int, headers: string, body: string}|null null when the server did not answer in time
     */
    public static function get(int $port, string $path, float $timeoutSeconds = 2.0): ?array
    {
        $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $errstr, $timeoutSeconds);
        if ($socket === false) {
            return null;
        }
        stream_set_timeout($socket, (int) ceil($timeoutSeconds));
        fwrite($socket, "GET {$path} HTTP/1.0\r\nHost: 127.0.0.1:{$port}\r\nConnection: close\r\n\r\n");
        $deadline = microtime(true) + $timeoutSeconds;
        $buffer = '';
        $result = null;
        while (microtime(true) < $deadline) {
            $chunk = fread($socket, 65_536);
            if ($chunk === false) {
                break;
            }
            $buffer .= $chunk;
            $result = self::complete($buffer);
            if ($result !== null || ($chunk === '' && feof($socket))) {
                break;
            }
        }
        fclose($socket);

        return $result;
    }

    /**
     * The response once its head and all of its body (by Content-Length) are in the buffer.
     *
     * @return array{status: int, headers: string, body: string}|null
     */
    private static function complete(string $buffer): ?array
    {
        $end = strpos($buffer, "\r\n\r\n");
        if ($end === false || preg_match('/^HTTP\/1\.[01] ([0-9]{3})/', $buffer, $status) !== 1) {
            return null;
        }
        $headers = substr($buffer, 0, $end);
        $body = substr($buffer, $end + 4);
        if (preg_match('/^content-length:\s*([0-9]+)/mi', $headers, $length) === 1 && \strlen($body) < (int) $length[1]) {
            return null;
        }

        return ['status' => (int) $status[1], 'headers' => $headers, 'body' => $body];
    }
}
