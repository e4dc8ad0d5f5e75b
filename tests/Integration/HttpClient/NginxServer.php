<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Tests\Support\FreePort;

/**
 * A throwaway nginx on 127.0.0.1 for the client tests, in a temp directory with its own document
 * root, on free ports:
 * - $port: plain HTTP, keep-alive, gzip for text, a few redirect and header-echo locations;
 * - $tlsPort: HTTPS with the test CA's certificate for 127.0.0.1/localhost (the default server)
 *   and another for other.test (served only to a client that sends SNI other.test);
 * - $shortKeepAlivePort: plain HTTP that closes a connection after 2 requests (keepalive_requests)
 *   and closes idle connections after 1 s.
 * start() returns once every port accepts; stop() ends nginx and removes the directory.
 */
final class NginxServer
{
    /** @var array<resource>|null */
    private static ?array $idle = null;

    /** text/plain, compressible: nginx gzips it for a client that accepts gzip. */
    public const TEXT = '/text.txt';
    /** 1 MiB of random bytes (application/octet-stream: not gzipped). */
    public const BINARY = '/random.bin';
    public const SMALL = '/small.txt';

    /**
     * @param resource $process
     */
    private function __construct(
        private mixed $process,
        public readonly string $dir,
        public readonly int $port,
        public readonly int $tlsPort,
        public readonly int $shortKeepAlivePort,
    ) {}

    public static function start(): self
    {
        $nginx = self::binary();
        $certs = TestCertificates::get();
        $dir = sys_get_temp_dir() . '/nexus-nginx-' . bin2hex(random_bytes(4));
        if (!mkdir("{$dir}/root", 0o755, true)) {
            throw new \RuntimeException("Cannot create {$dir}.");
        }
        file_put_contents("{$dir}/root/small.txt", "hello from nginx\n");
        file_put_contents("{$dir}/root/text.txt", self::text());
        file_put_contents("{$dir}/root/random.bin", random_bytes(1 << 20));
        [$port, $tlsPort, $shortPort] = [FreePort::get(), FreePort::get(), FreePort::get()];
        $user = posix_geteuid() === 0 ? 'user root;' : '';
        file_put_contents("{$dir}/nginx.conf", <<<CONF
            {$user}
            worker_processes 1;
            pid {$dir}/nginx.pid;
            error_log {$dir}/error.log warn;
            daemon off;
            events { worker_connections 512; }
            http {
                access_log off;
                client_body_temp_path {$dir}/client_body;
                proxy_temp_path {$dir}/proxy;
                fastcgi_temp_path {$dir}/fastcgi;
                uwsgi_temp_path {$dir}/uwsgi;
                scgi_temp_path {$dir}/scgi;
                types { text/plain txt; application/octet-stream bin; }
                default_type application/octet-stream;
                keepalive_timeout 60;
                keepalive_requests 100000;
                gzip on;
                gzip_types text/plain;
                gzip_min_length 64;
                server {
                    listen 127.0.0.1:{$port};
                    root {$dir}/root;
                    location = /redirect { return 302 /small.txt; }
                    location = /see-other { return 303 /headers; }
                    location = /loop { return 302 /loop; }
                    location = /elsewhere { return 307 http://localhost:{$port}/headers; }
                    location = /headers { default_type text/plain; return 200 "method=\$request_method authorization=[\$http_authorization] cookie=[\$http_cookie] host=[\$http_host]"; }
                }
                server {
                    listen 127.0.0.1:{$tlsPort} ssl default_server;
                    server_name localhost;
                    ssl_certificate {$certs->localCert};
                    ssl_certificate_key {$certs->localKey};
                    root {$dir}/root;
                }
                server {
                    listen 127.0.0.1:{$tlsPort} ssl;
                    server_name other.test;
                    ssl_certificate {$certs->otherCert};
                    ssl_certificate_key {$certs->otherKey};
                    root {$dir}/root;
                }
                server {
                    listen 127.0.0.1:{$shortPort};
                    keepalive_requests 2;
                    keepalive_timeout 1;
                    root {$dir}/root;
                }
            }

            CONF);
        $log = ['file', "{$dir}/nginx.out", 'a'];
        $process = proc_open([$nginx, '-p', "{$dir}/", '-c', "{$dir}/nginx.conf", '-e', "{$dir}/error.log"], [0 => ['file', '/dev/null', 'r'], 1 => $log, 2 => $log], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException("Cannot start {$nginx}.");
        }
        $server = new self($process, $dir, $port, $tlsPort, $shortPort);
        $listening = self::pollUntil(static fn(): bool => !proc_get_status($process)['running'] || (self::accepts($port) && self::accepts($tlsPort) && self::accepts($shortPort)), 15.0);
        if (!$listening || !proc_get_status($process)['running']) {
            $log = (string) @file_get_contents("{$dir}/error.log") . (string) @file_get_contents("{$dir}/nginx.out");
            $server->stop();

            throw new \RuntimeException("nginx did not start listening on 127.0.0.1:{$port}, {$tlsPort} and {$shortPort}:\n{$log}");
        }

        return $server;
    }

    public function url(string $path = '/'): string
    {
        return "http://127.0.0.1:{$this->port}{$path}";
    }

    public function tlsUrl(string $path = '/', string $host = '127.0.0.1'): string
    {
        return "https://{$host}:{$this->tlsPort}{$path}";
    }

    public function file(string $path): string
    {
        return (string) file_get_contents($this->dir . '/root' . $path);
    }

    public function stop(): void
    {
        if (\is_resource($this->process)) {
            $status = proc_get_status($this->process);
            if ($status['running']) {
                posix_kill($status['pid'], \SIGTERM);
                $process = $this->process;
                if (!self::pollUntil(static fn(): bool => !proc_get_status($process)['running'], 5.0)) {
                    posix_kill($status['pid'], \SIGKILL);
                }
            }
            proc_close($this->process);
        }
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    public static function binary(): string
    {
        foreach (['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'] as $path) {
            if (is_executable($path)) {
                return $path;
            }
        }

        throw new \RuntimeException('nginx is not installed (Debian: apt-get install -y nginx; make setup does it).');
    }

    private static function text(): string
    {
        $text = '';
        for ($i = 0; $i < 20_000; ++$i) {
            $text .= "line {$i}: the quick brown fox jumps over the lazy dog\n";
        }

        return $text;
    }

    /**
     * Polls $condition every 10 ms until it holds (true) or $seconds pass (false).
     *
     * @param \Closure(): bool $condition
     */
    public static function pollUntil(\Closure $condition, float $seconds): bool
    {
        $deadline = microtime(true) + $seconds;
        while (!$condition()) {
            if (microtime(true) > $deadline) {
                return false;
            }
            $write = $except = null;
            // stream_select() with no streams cannot wait; a socket pair nobody writes to can.
            $pair = self::$idle ??= stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP) ?: throw new \RuntimeException('Cannot make a socket pair to wait on.');
            $read = [$pair[0]];
            @stream_select($read, $write, $except, 0, 10_000);
        }

        return true;
    }

    private static function accepts(int $port): bool
    {
        $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $errstr, 0.5);
        if ($socket === false) {
            return false;
        }
        fclose($socket);

        return true;
    }
}
