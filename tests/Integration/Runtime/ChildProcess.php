<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Runtime;

/**
 * Test fixture: a short PHP child process whose stdout the test can watch.
 */
final class ChildProcess
{
    /** @var resource */
    public readonly mixed $stdout;
    /** @var resource */
    private readonly mixed $process;

    /**
     * @param list<string> $arguments available to $code as $argv[1], $argv[2], ...
     */
    public function __construct(string $code, array $arguments = [])
    {
        $pipes = [];
        $process = proc_open([\PHP_BINARY, '-r', $code, '--', ...$arguments], [1 => ['pipe', 'w']], $pipes);
        if ($process === false || !isset($pipes[1]) || !\is_resource($pipes[1])) {
            throw new \RuntimeException('Could not start a PHP child process.');
        }
        stream_set_blocking($pipes[1], false);
        $this->process = $process;
        $this->stdout = $pipes[1];
    }

    /**
     * Waits for the child to end and returns its exit code.
     */
    public function close(): int
    {
        if (\is_resource($this->stdout)) {
            fclose($this->stdout);
        }

        return proc_close($this->process);
    }
}
