<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * Starts the servers of `make bench-http` on free loopback ports, with their files (configs,
 * logs, pid files, sockets) in one temporary directory, and waits until each answers GET /.
 */
final class ServerLauncher
{
    public const NEXUS = 'nexus';
    public const BARE = 'bare-loop';
    public const NGINX_FPM = 'nginx+php-fpm';
    /** Workerman 5.1.6 from ../shared/peers (MIT; only ever run here, never a dependency). */
    public const WORKERMAN = 'workerman';
    public const ALL = [self::NEXUS, self::WORKERMAN, self::BARE, self::NGINX_FPM];
    /** Where the peers folder is looked for when NEXUS_PEERS_DIR does not say, relative to the checkout. */
    public const PEER_DIRS = ['../shared/peers', '../../shared/peers'];

    /** The ini settings `nexus serve` re-executes itself with; the bare loop gets the same. */
    public const JIT_INI = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M'];

    /** php-fpm children (pm = static): one per core of the 2-core bench machine. */
    public const FPM_CHILDREN = 2;

    /**
     * @param string|null           $fpmScript   the script php-fpm runs for every request (default bench/http/fpm-app.php)
     * @param int                   $fpmChildren php-fpm children (pm = static)
     * @param array<string, string> $fpmEnv      environment variables of the php-fpm children (env[...] lines)
     */
    public function __construct(
        private readonly string $root,
        private readonly string $tempDir,
        private readonly string $php = \PHP_BINARY,
        private readonly string $nginx = 'nginx',
        private readonly string $phpFpm = 'php-fpm8.2',
        private readonly ?string $fpmScript = null,
        private readonly int $fpmChildren = self::FPM_CHILDREN,
        private readonly array $fpmEnv = [],
    ) {
        if ($fpmChildren < 1) {
            throw new \InvalidArgumentException("php-fpm needs at least 1 child, got {$fpmChildren}.");
        }
        foreach ($fpmEnv as $name => $value) {
            if (preg_match('/^[A-Za-z_][A-Za-z0-9_]*$/', $name) !== 1 || preg_match('/[\r\n"]/', $value) === 1) {
                throw new \InvalidArgumentException("php-fpm environment variable '{$name}' needs a plain name and a value without quotes or line breaks.");
            }
        }
    }

    public function start(string $name): RunningServer
    {
        return match ($name) {
            self::NEXUS => $this->nexus(),
            self::BARE => $this->bare(),
            self::NGINX_FPM => $this->nginxFpm(),
            self::WORKERMAN => $this->workerman(),
            default => throw new \InvalidArgumentException("Unknown server '{$name}'; known: " . implode(', ', self::ALL) . '.'),
        };
    }

    /**
     * A TCP port nobody listens on right now (the kernel's pick for port 0).
     */
    public static function freePort(): int
    {
        $socket = @stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if ($socket === false) {
            throw new \RuntimeException("Cannot find a free port: {$errstr}");
        }
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);

        return (int) substr($name, (int) strrpos($name, ':') + 1);
    }

    private function nexus(): RunningServer
    {
        $port = self::freePort();
        $process = new ManagedProcess(
            self::NEXUS,
            [$this->php, "{$this->root}/bin/nexus", 'serve', '--host=127.0.0.1', "--port={$port}", '--workers=1', '--admin=127.0.0.1:0'],
            "{$this->tempDir}/nexus.log",
        );

        return $this->ready(new RunningServer(self::NEXUS, $port, [$process]));
    }

    /**
     * The folder with workerman_server.php (NEXUS_PEERS_DIR, else ../shared/peers beside the
     * checkout), or null when there is none: then Workerman is skipped with a note.
     */
    public function peersDir(): ?string
    {
        $given = getenv('NEXUS_PEERS_DIR');
        $candidates = \is_string($given) && $given !== '' ? [$given] : array_map(fn(string $dir): string => "{$this->root}/{$dir}", self::PEER_DIRS);
        foreach ($candidates as $dir) {
            if (is_file("{$dir}/workerman_server.php")) {
                return realpath($dir) ?: $dir;
            }
        }

        return null;
    }

    private function workerman(): RunningServer
    {
        $dir = $this->peersDir() ?? throw new \RuntimeException('Workerman is not there: no workerman_server.php in NEXUS_PEERS_DIR or ' . implode(', ', self::PEER_DIRS) . '.');
        $port = self::freePort();
        // Its own default: one worker, the stream_select loop (no ext-event here), SO_REUSEPORT.
        $process = new ManagedProcess(
            self::WORKERMAN,
            [$this->php, ...self::JIT_INI, "{$dir}/workerman_server.php", 'start', (string) $port],
            "{$this->tempDir}/workerman.log",
        );

        return $this->ready(new RunningServer(self::WORKERMAN, $port, [$process]));
    }

    private function bare(): RunningServer
    {
        $port = self::freePort();
        $process = new ManagedProcess(
            self::BARE,
            [$this->php, ...self::JIT_INI, "{$this->root}/bench/http/bare-loop.php", (string) $port],
            "{$this->tempDir}/bare-loop.log",
        );

        return $this->ready(new RunningServer(self::BARE, $port, [$process]));
    }

    private function nginxFpm(): RunningServer
    {
        $dir = "{$this->tempDir}/nginx-fpm";
        if (!is_dir($dir) && !mkdir($dir, 0o755, true)) {
            throw new \RuntimeException("Cannot create {$dir}.");
        }
        $fpmPort = self::freePort();
        $port = self::freePort();
        $root = posix_geteuid() === 0;
        file_put_contents("{$dir}/php-fpm.conf", $this->fpmConfig($dir, $fpmPort, $root));
        file_put_contents("{$dir}/nginx.conf", $this->nginxConfig($dir, $port, $fpmPort, $root));

        $fpmCommand = [$this->phpFpm, '--nodaemonize', '--fpm-config', "{$dir}/php-fpm.conf", '--prefix', $dir, ...self::JIT_INI];
        if ($root) {
            $fpmCommand[] = '--allow-to-run-as-root';
        }
        $fpm = new ManagedProcess('php-fpm', $fpmCommand, "{$dir}/php-fpm.out");
        $this->waitForPort($fpm, $fpmPort);
        try {
            $nginx = new ManagedProcess(
                'nginx',
                [$this->nginx, '-p', "{$dir}/", '-c', "{$dir}/nginx.conf", '-e', "{$dir}/nginx-error.log"],
                "{$dir}/nginx.out",
            );
        } catch (\Throwable $e) {
            $fpm->stop();

            throw $e;
        }

        return $this->ready(new RunningServer(self::NGINX_FPM, $port, [$fpm, $nginx]));
    }

    private function fpmConfig(string $dir, int $port, bool $root): string
    {
        $user = $root ? "user = root\ngroup = root\n" : '';
        $env = '';
        foreach ($this->fpmEnv as $name => $value) {
            $env .= "env[{$name}] = \"{$value}\"\n";
        }

        return <<<INI
            [global]
            pid = {$dir}/php-fpm.pid
            error_log = {$dir}/php-fpm.log
            daemonize = no

            [bench]
            {$user}listen = 127.0.0.1:{$port}
            listen.backlog = 4096
            pm = static
            pm.max_children = {$this->fpmChildren()}
            pm.max_requests = 0
            clear_env = yes
            catch_workers_output = yes
            {$env}
            INI;
    }

    private function nginxConfig(string $dir, int $port, int $fpmPort, bool $root): string
    {
        $user = $root ? "user root;\n" : '';
        $script = $this->fpmScript ?? "{$this->root}/bench/http/fpm-app.php";

        return <<<CONF
            {$user}worker_processes 1;
            worker_rlimit_nofile 16384;
            pid {$dir}/nginx.pid;
            error_log {$dir}/nginx-error.log warn;
            daemon off;

            events {
                worker_connections 8192;
            }

            http {
                access_log off;
                client_body_temp_path {$dir}/client_body;
                proxy_temp_path {$dir}/proxy;
                fastcgi_temp_path {$dir}/fastcgi;
                uwsgi_temp_path {$dir}/uwsgi;
                scgi_temp_path {$dir}/scgi;
                keepalive_requests 1000000;
                keepalive_timeout 65;

                server {
                    listen 127.0.0.1:{$port} backlog=511;
                    location / {
                        fastcgi_pass 127.0.0.1:{$fpmPort};
                        fastcgi_param SCRIPT_FILENAME {$script};
                        fastcgi_param SCRIPT_NAME /fpm-app.php;
                        fastcgi_param REQUEST_METHOD \$request_method;
                        fastcgi_param REQUEST_URI \$request_uri;
                        fastcgi_param QUERY_STRING \$query_string;
                        fastcgi_param SERVER_PROTOCOL \$server_protocol;
                        fastcgi_param CONTENT_TYPE \$content_type;
                        fastcgi_param CONTENT_LENGTH \$content_length;
                        fastcgi_param REMOTE_ADDR \$remote_addr;
                        fastcgi_param SERVER_NAME \$server_name;
                        fastcgi_param SERVER_PORT \$server_port;
                    }
                }
            }

            CONF;
    }

    private function fpmChildren(): int
    {
        return $this->fpmChildren;
    }

    private function waitForPort(ManagedProcess $process, int $port, float $timeoutSeconds = 15.0): void
    {
        $deadline = microtime(true) + $timeoutSeconds;
        while (microtime(true) < $deadline) {
            if (!$process->running()) {
                throw new \RuntimeException("{$process->name} exited at start:\n" . $process->logTail());
            }
            $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $errstr, 0.5);
            if ($socket !== false) {
                fclose($socket);

                return;
            }
            usleep(50_000);
        }
        $process->stop();

        throw new \RuntimeException("{$process->name} did not listen on 127.0.0.1:{$port} within {$timeoutSeconds} s:\n" . $process->logTail());
    }

    /**
     * Waits until GET / answers 200, stopping the server (and throwing) when it does not.
     */
    private function ready(RunningServer $server, float $timeoutSeconds = 15.0): RunningServer
    {
        $deadline = microtime(true) + $timeoutSeconds;
        while (microtime(true) < $deadline) {
            $crashed = $server->crashed();
            if ($crashed !== null) {
                $server->stop();

                throw new \RuntimeException("{$crashed->name} exited at start:\n" . $crashed->logTail());
            }
            $response = HttpProbe::get($server->port, '/', 1.0);
            if ($response !== null && $response['status'] === 200) {
                return $server;
            }
            usleep(50_000);
        }
        $server->stop();

        throw new \RuntimeException("{$server->name} did not answer GET / on 127.0.0.1:{$server->port} within {$timeoutSeconds} s.");
    }
}
