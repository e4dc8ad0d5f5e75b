<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cli;

/**
 * Runs a PHP script in a child process (the same PHP binary as the tests) and collects its exit
 * code and output, killing it when it runs past a deadline.
 */
final class PhpProcess
{
    private function __construct(
        public readonly int $exitCode,
        public readonly string $stdout,
        public readonly string $stderr,
        public readonly float $seconds,
    ) {}

    /**
     * @param list<string> $arguments the script and its arguments
     */
    public static function run(array $arguments, string $cwd, float $timeout = 10.0): self
    {
        $command = [\PHP_BINARY, ...$arguments];
        $started = microtime(true);
        $process = proc_open($command, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $cwd);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Could not start ' . implode(' ', $command) . " in {$cwd}.");
        }
        fclose($pipes[0]);
        $output = [1 => '', 2 => ''];
        $open = [1 => $pipes[1], 2 => $pipes[2]];
        foreach ($open as $pipe) {
            stream_set_blocking($pipe, false);
        }
        while ($open !== []) {
            $left = $timeout - (microtime(true) - $started);
            if ($left <= 0.0) {
                proc_terminate($process, 9);
                proc_close($process);
                throw new \RuntimeException(sprintf(
                    "%s did not finish within %.1f s and was killed.\nstdout so far:\n%s\nstderr so far:\n%s",
                    implode(' ', $command),
                    $timeout,
                    $output[1],
                    $output[2],
                ));
            }
            $read = array_values($open);
            $write = $except = null;
            if (stream_select($read, $write, $except, 0, (int) ($left * 1e6)) === false) {
                throw new \RuntimeException('stream_select() failed while reading the output of ' . implode(' ', $command) . '.');
            }
            foreach ($open as $fd => $pipe) {
                $chunk = fread($pipe, 65536);
                if ($chunk !== false) {
                    $output[$fd] .= $chunk;
                }
                if (feof($pipe)) {
                    fclose($pipe);
                    unset($open[$fd]);
                }
            }
        }
        $exitCode = proc_close($process);

        return new self($exitCode, $output[1], $output[2], microtime(true) - $started);
    }

    public function describe(): string
    {
        return sprintf("exit code %d after %.2f s\n--- stdout ---\n%s\n--- stderr ---\n%s", $this->exitCode, $this->seconds, $this->stdout, $this->stderr);
    }
}
