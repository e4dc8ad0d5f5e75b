<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * Drives a headless Chromium through the DevTools protocol over its WebSocket, blocking, for
 * browser tests: start() launches it on a fresh profile, open() a page, evaluate() runs a script
 * in it, screenshot() captures it. Every wait has a deadline; close() kills the browser and
 * removes the profile.
 */
final class DevToolsClient
{
    /** @var resource|null */
    private $process = null;
    /** @var resource|null */
    private $socket = null;
    private int $nextId = 0;
    private string $buffer = '';

    private function __construct(private readonly string $profile) {}

    public static function start(string $chromium, int $width = 1400, int $height = 1000): self
    {
        $profile = sys_get_temp_dir() . '/nexus-chromium-' . bin2hex(random_bytes(6));
        mkdir($profile, 0o700);
        $client = new self($profile);
        $command = [
            $chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync',
            '--disable-dev-shm-usage', "--user-data-dir={$profile}", '--remote-debugging-port=0',
            "--window-size={$width},{$height}", 'about:blank',
        ];
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', "{$profile}.log", 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Could not start ' . $chromium);
        }
        $client->process = $process;
        $portFile = "{$profile}/DevToolsActivePort";
        $deadline = microtime(true) + 30.0;
        while (!is_file($portFile) || \count(file($portFile) ?: []) < 2) {
            if (microtime(true) > $deadline || !proc_get_status($process)['running']) {
                $log = (string) @file_get_contents("{$profile}.log");
                $client->close();

                throw new \RuntimeException("Chromium did not open its DevTools port within 30 s:\n{$log}");
            }
            self::pollStepBeforeDeadline();
        }
        [$port, $path] = array_map('trim', file($portFile) ?: []);
        $client->connect((int) $port, $path);

        return $client;
    }

    /**
     * Opens $url in a new tab and returns the session id to evaluate() in.
     */
    public function open(string $url): string
    {
        $target = $this->call('Target.createTarget', ['url' => $url]);
        $session = $this->call('Target.attachToTarget', ['targetId' => $target['targetId'] ?? '', 'flatten' => true]);

        return \is_string($session['sessionId'] ?? null) ? $session['sessionId'] : throw new \RuntimeException('Chromium gave no session id.');
    }

    /**
     * Runs $expression in the page and returns its value (null when it throws, e.g. while the
     * page is still loading).
     */
    public function evaluate(string $session, string $expression): mixed
    {
        $result = $this->call('Runtime.evaluate', ['expression' => $expression, 'returnByValue' => true], $session);
        if (isset($result['exceptionDetails'])) {
            return null;
        }
        $value = $result['result'] ?? null;

        return \is_array($value) ? ($value['value'] ?? null) : null;
    }

    /**
     * Polls $expression until it is true, at most $timeout seconds; returns the seconds it took,
     * or null when it never was.
     */
    public function waitFor(string $session, string $expression, float $timeout): ?float
    {
        $start = microtime(true);
        do {
            if ($this->evaluate($session, $expression) === true) {
                return microtime(true) - $start;
            }
            self::pollStepBeforeDeadline(0.02);
        } while (microtime(true) - $start < $timeout);

        return null;
    }

    /**
     * A PNG of the page's viewport.
     */
    public function screenshot(string $session): string
    {
        $result = $this->call('Page.captureScreenshot', ['format' => 'png'], $session);
        $data = base64_decode(\is_string($result['data'] ?? null) ? $result['data'] : '', true);

        return \is_string($data) ? $data : throw new \RuntimeException('Chromium sent no screenshot.');
    }

    public function close(): void
    {
        if (\is_resource($this->socket)) {
            fclose($this->socket);
        }
        $this->socket = null;
        if (\is_resource($this->process)) {
            proc_terminate($this->process, \SIGKILL);
            proc_close($this->process);
        }
        $this->process = null;
        exec('rm -rf ' . escapeshellarg($this->profile) . ' ' . escapeshellarg("{$this->profile}.log"));
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * @param array<string, mixed> $params
     *
     * @return array<mixed>
     */
    private function call(string $method, array $params, ?string $session = null, float $timeout = 15.0): array
    {
        $id = ++$this->nextId;
        $message = ['id' => $id, 'method' => $method, 'params' => (object) $params];
        if ($session !== null) {
            $message['sessionId'] = $session;
        }
        $this->send(json_encode($message, \JSON_THROW_ON_ERROR));
        $deadline = microtime(true) + $timeout;
        while (true) {
            $reply = json_decode($this->receive($deadline), true);
            if (\is_array($reply) && ($reply['id'] ?? null) === $id) {
                if (isset($reply['error'])) {
                    throw new \RuntimeException("{$method} failed: " . json_encode($reply['error']));
                }

                return \is_array($reply['result'] ?? null) ? $reply['result'] : [];
            }
        }
    }

    private function connect(int $port, string $path): void
    {
        $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, 10.0);
        if ($socket === false) {
            throw new \RuntimeException("Could not connect to Chromium's DevTools on port {$port}: {$error}");
        }
        $this->socket = $socket;
        $key = base64_encode(random_bytes(16));
        fwrite($socket, "GET {$path} HTTP/1.1\r\nHost: 127.0.0.1:{$port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n\r\n");
        $deadline = microtime(true) + 10.0;
        while (!str_contains($this->buffer, "\r\n\r\n")) {
            $this->fill($deadline);
        }
        [$head, $this->buffer] = explode("\r\n\r\n", $this->buffer, 2);
        if (!str_starts_with($head, 'HTTP/1.1 101')) {
            throw new \RuntimeException("Chromium refused the WebSocket upgrade: {$head}");
        }
    }

    private function send(string $text): void
    {
        \assert(\is_resource($this->socket));
        $length = \strlen($text);
        $head = \chr(0x81);
        if ($length < 126) {
            $head .= \chr(0x80 | $length);
        } elseif ($length < 65536) {
            $head .= \chr(0x80 | 126) . pack('n', $length);
        } else {
            $head .= \chr(0x80 | 127) . pack('J', $length);
        }
        $mask = random_bytes(4);
        $masked = $text ^ str_repeat($mask, intdiv($length, 4) + 1);
        fwrite($this->socket, $head . $mask . substr($masked, 0, $length));
    }

    private function receive(float $deadline): string
    {
        $message = '';
        while (true) {
            while (\strlen($this->buffer) < 2) {
                $this->fill($deadline);
            }
            $first = \ord($this->buffer[0]);
            $length = \ord($this->buffer[1]) & 0x7F;
            $offset = 2;
            if ($length === 126) {
                while (\strlen($this->buffer) < 4) {
                    $this->fill($deadline);
                }
                $length = unpack('n', substr($this->buffer, 2, 2))[1] ?? 0;
                $offset = 4;
            } elseif ($length === 127) {
                while (\strlen($this->buffer) < 10) {
                    $this->fill($deadline);
                }
                $length = unpack('J', substr($this->buffer, 2, 8))[1] ?? 0;
                $offset = 10;
            }
            \assert(\is_int($length));
            while (\strlen($this->buffer) < $offset + $length) {
                $this->fill($deadline);
            }
            $payload = substr($this->buffer, $offset, $length);
            $this->buffer = substr($this->buffer, $offset + $length);
            $opcode = $first & 0x0F;
            if ($opcode === 0x8) {
                throw new \RuntimeException('Chromium closed the DevTools connection.');
            }
            if ($opcode === 0x1 || $opcode === 0x0) {
                $message .= $payload;
                if (($first & 0x80) !== 0) {
                    return $message;
                }
            }
        }
    }

    private function fill(float $deadline): void
    {
        \assert(\is_resource($this->socket));
        $left = $deadline - microtime(true);
        if ($left <= 0) {
            throw new \RuntimeException('Chromium did not answer on DevTools in time.');
        }
        $read = [$this->socket];
        $write = $except = null;
        if (stream_select($read, $write, $except, 0, (int) min(1e6, $left * 1e6)) > 0) {
            $chunk = fread($this->socket, 65536);
            if ($chunk === false || ($chunk === '' && feof($this->socket))) {
                throw new \RuntimeException('The DevTools connection closed.');
            }
            $this->buffer .= $chunk;
        }
    }

    /**
     * One step of the poll-until-deadline loops above (never a fixed wait before an assertion).
     */
    private static function pollStepBeforeDeadline(float $seconds = 0.05): void
    {
        usleep((int) ($seconds * 1e6));
    }
}
