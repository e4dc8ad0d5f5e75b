<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * The openssl CLI for tests that need certificates: a private temp directory removed when the
 * test process ends, and commands run in it (a failure throws with openssl's own output).
 */
final class OpenSsl
{
    /**
     * A new directory (mode 0700) under the system's temp directory, removed with its files at
     * the end of the process.
     */
    public static function directory(string $prefix): string
    {
        $dir = sys_get_temp_dir() . "/{$prefix}-" . bin2hex(random_bytes(4));
        if (!mkdir($dir, 0o700)) {
            throw new \RuntimeException("Cannot create {$dir}.");
        }
        register_shutdown_function(static function () use ($dir): void {
            foreach (glob("{$dir}/*") ?: [] as $file) {
                @unlink($file);
            }
            @rmdir($dir);
        });

        return $dir;
    }

    /**
     * Runs `openssl $args` in $dir.
     *
     * @param list<string> $args
     */
    public static function run(string $dir, array $args): void
    {
        $process = proc_open(['openssl', ...$args], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $dir);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot run openssl (Debian: apt-get install -y openssl).');
        }
        $output = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        if (proc_close($process) !== 0) {
            throw new \RuntimeException('openssl ' . implode(' ', $args) . " failed:\n{$output}");
        }
    }
}
