<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cli;

use PHPUnit\Framework\TestCase;

/**
 * `bin/nexus top` against a real server (examples/observability.php) and its admin listener.
 */
final class TopCommandTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    /** @var resource|null */
    private $served = null;

    protected function tearDown(): void
    {
        if (\is_resource($this->served)) {
            proc_terminate($this->served, \SIGKILL);
            proc_close($this->served);
        }
    }

    public function testOncePrintsTheHeadlineFigures(): void
    {
        [$app, $admin] = $this->serve();
        self::assertNotFalse(@file_get_contents("http://{$app}/counters/visits", false, stream_context_create(['http' => ['method' => 'POST']])));

        // The view learns of the new actor from an event: ask again until it shows (or 10 s pass).
        $deadline = microtime(true) + 10.0;
        do {
            $process = PhpProcess::run(['bin/nexus', 'top', "--admin={$admin}", '--once'], self::ROOT);
        } while (!str_contains($process->stdout, '/user/visits') && microtime(true) < $deadline);

        self::assertSame(0, $process->exitCode, $process->describe());
        self::assertStringContainsString('Nexus · shop', $process->stdout);
        self::assertMatchesRegularExpression('/workers 1\/1 up   actors \d+   requests \d+/', $process->stdout);
        self::assertMatchesRegularExpression('/^0 +\d+ +- +[\d.]+ MiB/m', $process->stdout, 'the worker line');
        self::assertStringContainsString('/user/visits', $process->stdout);
    }

    public function testItFollowsTheLiveFeed(): void
    {
        [, $admin] = $this->serve();

        $process = PhpProcess::run(['bin/nexus', 'top', "--admin={$admin}", '--frames=2'], self::ROOT, 20.0);

        self::assertSame(0, $process->exitCode, $process->describe());
        self::assertSame(2, substr_count($process->stdout, 'Nexus · shop'), $process->describe());
        self::assertMatchesRegularExpression('/^0 +\d+ +\d+% /m', $process->stdout, 'the second screen has a CPU figure from the first');
    }

    public function testNothingListeningIsAClearError(): void
    {
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $address = substr((string) stream_socket_get_name($probe, false), 0);
        fclose($probe); // a port nobody listens on any more

        $process = PhpProcess::run(['bin/nexus', 'top', "--admin={$address}", '--once'], self::ROOT);

        self::assertSame(1, $process->exitCode, $process->describe());
        self::assertStringContainsString("Cannot reach the admin listener at {$address}", $process->stderr);
    }

    public function testABadAddressIsAUsageError(): void
    {
        $process = PhpProcess::run(['bin/nexus', 'top', '--admin=localhost'], self::ROOT);

        self::assertSame(2, $process->exitCode, $process->describe());
        self::assertStringContainsString('HOST:PORT with an IP address', $process->stderr);
    }

    /**
     * @return array{string, string} the app's and the admin listener's HOST:PORT
     */
    private function serve(): array
    {
        $process = proc_open([\PHP_BINARY, 'examples/observability.php', '--port=0', '--admin=127.0.0.1:0'], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $this->served = $process;
        $output = '';
        $deadline = microtime(true) + 15.0;
        while (preg_match('#^app http://(\S+) admin http://(\S+)$#m', $output, $match) !== 1) {
            if (microtime(true) > $deadline) {
                self::fail("examples/observability.php did not say where it listens within 15 s: {$output}");
            }
            $read = [$pipes[1]];
            $write = $except = null;
            stream_select($read, $write, $except, 0, 100_000);
            $output .= (string) fread($pipes[1], 8192);
        }

        return [$match[1], $match[2]];
    }
}
