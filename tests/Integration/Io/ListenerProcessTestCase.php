<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\EpollDriver;
use PHPUnit\Framework\TestCase;

/**
 * A listener in a child process (a fixture that prints its address on stdout and logs on stderr)
 * and blocking clients in the test. Every wait is for a condition, until a deadline.
 */
abstract class ListenerProcessTestCase extends TestCase
{
    /** @var resource|null */
    private mixed $process = null;
    /** @var array<int, resource> */
    private array $pipes = [];
    private string $log = '';

    protected function tearDown(): void
    {
        if (\is_resource($this->process)) {
            proc_terminate($this->process);
            proc_close($this->process);
        }
    }

    /**
     * Skips the test, with the reason, unless the epoll driver is there and this process may
     * hold $descriptors descriptors (raising its soft limit up to the hard one if need be).
     */
    protected static function requireEpollFor(int $descriptors): void
    {
        $reason = EpollDriver::unsupportedReason();
        if ($reason !== null) {
            self::markTestSkipped("epoll is not available here: {$reason}");
        }
        if (DriverFactory::descriptorLimit() < $descriptors) {
            self::markTestSkipped(\sprintf('RLIMIT_NOFILE is %d and cannot be raised to %d (raise the hard limit: ulimit -Hn, as root).', DriverFactory::descriptorLimit(), $descriptors));
        }
    }

    /**
     * @param string       $fixture a file in Fixture/, or an absolute path
     * @param list<string> $args
     */
    protected function start(string $fixture, array $args = []): string
    {
        $process = proc_open([\PHP_BINARY, str_starts_with($fixture, '/') ? $fixture : __DIR__ . '/Fixture/' . $fixture, ...$args], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $this->process = $process;
        $this->pipes = $pipes;
        $address = trim((string) fgets($pipes[1]));
        if (!str_starts_with($address, 'tcp://')) {
            self::fail('The child did not start: ' . stream_get_contents($pipes[2]));
        }
        stream_set_blocking($pipes[2], false);

        return $address;
    }

    /**
     * What the child logged so far.
     */
    protected function log(): string
    {
        $more = stream_get_contents($this->pipes[2]);
        $this->log .= \is_string($more) ? $more : '';

        return $this->log;
    }

    /**
     * Waits until the child's log contains $text $times times.
     */
    protected function waitForLog(string $text, int $times = 1, float $timeout = 5.0): void
    {
        $until = microtime(true) + $timeout;
        while (substr_count($this->log(), $text) < $times && microtime(true) < $until) {
            $read = [$this->pipes[2]];
            $none = null;
            @stream_select($read, $none, $none, 0, 20_000);
        }
        self::assertGreaterThanOrEqual($times, substr_count($this->log(), $text), "the child logged '{$text}' {$times} time(s):\n{$this->log}");
    }

    /**
     * Watches the child's CPU time for $window seconds of wall time and fails as soon as it has
     * used $maxCpu: a process that spins uses CPU all the time it runs, one that waits next to
     * none however loaded the machine. The window ends early on failure, never on success.
     */
    protected function assertChildDoesNotSpin(float $window = 0.5, float $maxCpu = 0.2): void
    {
        $cpu = $this->childCpuSeconds();
        $until = microtime(true) + $window;
        do {
            $read = [$this->pipes[2]];
            $none = null;
            @stream_select($read, $none, $none, 0, 20_000);
            $this->log();
            $spent = $this->childCpuSeconds() - $cpu;
        } while ($spent < $maxCpu && microtime(true) < $until);
        self::assertLessThan($maxCpu, $spent, \sprintf('the child spins: %.2f s of CPU', $spent));
    }

    protected function stopChild(): void
    {
        \assert(\is_resource($this->process));
        proc_terminate($this->process);
        $status = proc_get_status($this->process);
        $until = microtime(true) + 5.0;
        while ($status['running'] && microtime(true) < $until) {
            $read = [$this->pipes[2]];
            $none = null;
            @stream_select($read, $none, $none, 0, 20_000);
            $this->log();
            $status = proc_get_status($this->process);
        }
        $this->log();
    }

    /**
     * @return resource
     */
    protected static function connect(string $address): mixed
    {
        $client = stream_socket_client($address, $errno, $errstr, 2.0);
        self::assertIsResource($client, "connect: {$errstr}");

        return $client;
    }

    /**
     * @param resource $client
     */
    protected static function echo(mixed $client, string $text): string
    {
        fwrite($client, $text);

        return self::read($client, \strlen($text), 3.0);
    }

    /**
     * Up to $length bytes, fewer when the peer closes or $timeout passes first.
     *
     * @param resource $client
     */
    protected static function read(mixed $client, int $length, float $timeout): string
    {
        $received = '';
        $until = microtime(true) + $timeout;
        while (\strlen($received) < $length && microtime(true) < $until) {
            $read = [$client];
            $write = $except = null;
            if (stream_select($read, $write, $except, 0, 50_000) === 1) {
                $chunk = fread($client, max(1, $length - \strlen($received)));
                if ($chunk === false || ($chunk === '' && feof($client))) {
                    break;
                }
                $received .= $chunk;
            }
        }

        return $received;
    }

    /**
     * Whether the peer closes $client within $timeout (reading only EOF, or a reset).
     *
     * @param resource $client
     */
    protected static function closedByPeer(mixed $client, float $timeout = 3.0): bool
    {
        $until = microtime(true) + $timeout;
        while (microtime(true) < $until) {
            $read = [$client];
            $write = $except = null;
            if (stream_select($read, $write, $except, 0, 50_000) === 1) {
                $chunk = @fread($client, 1024);

                return $chunk === false || ($chunk === '' && feof($client));
            }
        }

        return false;
    }

    private function childCpuSeconds(): float
    {
        \assert(\is_resource($this->process));
        $pid = proc_get_status($this->process)['pid'];
        $stat = (string) file_get_contents("/proc/{$pid}/stat");
        $fields = explode(' ', substr($stat, (int) strrpos($stat, ')') + 2));

        return ((int) $fields[11] + (int) $fields[12]) / 100;
    }
}
