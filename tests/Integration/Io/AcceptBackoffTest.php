<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use PHPUnit\Framework\TestCase;

/**
 * A listener out of file descriptors (EMFILE) backs off instead of spinning on its readable
 * listening socket, keeps serving the connections it has, and accepts again once it can.
 * The listener runs in a child process whose descriptor limit leaves room for two connections.
 */
final class AcceptBackoffTest extends TestCase
{
    /** @var resource|null */
    private mixed $process = null;
    /** @var array<int, resource> */
    private array $pipes = [];

    protected function tearDown(): void
    {
        if (\is_resource($this->process)) {
            proc_terminate($this->process);
            proc_close($this->process);
        }
    }

    public function testBacksOffWhenOutOfDescriptorsAndResumesWhenOneIsFree(): void
    {
        if (!\function_exists('posix_setrlimit') || !is_dir('/proc/self/fd')) {
            self::markTestSkipped('Needs posix_setrlimit() and /proc.');
        }
        $address = $this->start();
        $first = self::connect($address);
        $second = self::connect($address);
        self::assertSame('one', self::echo($first, 'one'));
        self::assertSame('two', self::echo($second, 'two'));

        $third = self::connect($address); // completes in the kernel backlog
        fwrite($third, 'three');
        $cpu = $this->cpuSeconds();
        usleep(600_000);
        $spent = $this->cpuSeconds() - $cpu;
        self::assertLessThan(0.2, $spent, 'the listener does not spin while it cannot accept');
        self::assertSame('still', self::echo($first, 'still'), 'open connections are still served');

        fclose($second);
        self::assertSame('three', self::read($third, 5, 3.0), 'accepted once a descriptor is free');

        \assert(\is_resource($this->process));
        proc_terminate($this->process);
        $log = (string) stream_get_contents($this->pipes[2]);
        self::assertSame(1, substr_count($log, 'Too many open files'), "one warning per episode:\n{$log}");
        self::assertStringContainsString('again', $log);
    }

    private function start(): string
    {
        $script = __DIR__ . '/Fixture/exhausted-listener.php';
        $process = proc_open([\PHP_BINARY, $script], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $this->process = $process;
        $this->pipes = $pipes;
        $address = trim((string) fgets($pipes[1]));
        if (!str_starts_with($address, 'tcp://')) {
            self::fail('The child did not start: ' . stream_get_contents($pipes[2]));
        }

        return $address;
    }

    private function cpuSeconds(): float
    {
        \assert(\is_resource($this->process));
        $pid = proc_get_status($this->process)['pid'];
        $stat = (string) file_get_contents("/proc/{$pid}/stat");
        $fields = explode(' ', substr($stat, (int) strrpos($stat, ')') + 2));

        return ((int) $fields[11] + (int) $fields[12]) / 100;
    }

    /**
     * @return resource
     */
    private static function connect(string $address): mixed
    {
        $client = stream_socket_client($address, $errno, $errstr, 2.0);
        self::assertIsResource($client, "connect: {$errstr}");

        return $client;
    }

    /**
     * @param resource $client
     */
    private static function echo(mixed $client, string $text): string
    {
        fwrite($client, $text);

        return self::read($client, \strlen($text), 3.0);
    }

    /**
     * @param resource $client
     */
    private static function read(mixed $client, int $length, float $timeout): string
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
}
