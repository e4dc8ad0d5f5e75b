<?php

declare(strict_types=1);

namespace Nexus\Bench\HttpClient;

use Nexus\Bench\Http\HttpProbe;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\RunningServer;
use Nexus\Bench\Http\ServerLauncher;

/**
 * nginx serving one small static file on a free loopback port, for `make bench-http-client`: one
 * worker, access log off, keep-alive without a request limit; its files in $dir.
 */
final class StaticNginx
{
    public const PATH = '/small.txt';
    public const BODY = 'Hello, world! This is a small static file served by nginx.';

    public static function start(string $nginx, string $dir): RunningServer
    {
        if (!is_dir("{$dir}/root") && !mkdir("{$dir}/root", 0o755, true)) {
            throw new \RuntimeException("Cannot create {$dir}/root.");
        }
        file_put_contents("{$dir}/root" . self::PATH, self::BODY);
        $port = ServerLauncher::freePort();
        $user = posix_geteuid() === 0 ? "user root;\n" : '';
        file_put_contents("{$dir}/nginx.conf", <<<CONF
            {$user}worker_processes 1;
            worker_rlimit_nofile 8192;
            pid {$dir}/nginx.pid;
            error_log {$dir}/nginx-error.log warn;
            daemon off;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path {$dir}/client_body;
                proxy_temp_path {$dir}/proxy;
                fastcgi_temp_path {$dir}/fastcgi;
                uwsgi_temp_path {$dir}/uwsgi;
                scgi_temp_path {$dir}/scgi;
                types { text/plain txt; }
                keepalive_requests 100000000;
                keepalive_timeout 65;
                server {
                    listen 127.0.0.1:{$port} backlog=1024;
                    root {$dir}/root;
                }
            }

            CONF);
        $process = new ManagedProcess('nginx', [$nginx, '-p', "{$dir}/", '-c', "{$dir}/nginx.conf", '-e', "{$dir}/nginx-error.log"], "{$dir}/nginx.out");
        $server = new RunningServer('nginx', $port, [$process]);
        $deadline = microtime(true) + 15.0;
        while (microtime(true) < $deadline) {
            if ($server->crashed() !== null) {
                throw new \RuntimeException("nginx exited at start:\n" . $process->logTail());
            }
            $response = HttpProbe::get($port, self::PATH, 1.0);
            if ($response !== null && $response['status'] === 200 && $response['body'] === self::BODY) {
                return $server;
            }
            usleep(50_000);
        }
        $server->stop();

        throw new \RuntimeException("nginx did not serve {$port}" . self::PATH . ' within 15 s.');
    }
}
