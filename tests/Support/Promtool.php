<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * `promtool check metrics` (Debian package prometheus) over an exposition, for the tests that
 * validate what /metrics serves.
 */
final class Promtool
{
    /**
     * Its exit code and what it printed (stdout then stderr).
     *
     * @return array{int, string}
     */
    public static function check(string $promtool, string $exposition): array
    {
        $process = proc_open([$promtool, 'check', 'metrics'], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException("Cannot run {$promtool}.");
        }
        fwrite($pipes[0], $exposition);
        fclose($pipes[0]);
        $output = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);

        return [proc_close($process), $output];
    }
}
