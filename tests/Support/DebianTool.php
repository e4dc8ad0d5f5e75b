<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * Finds a command-line tool a test needs, installing its Debian package with apt-get when it is
 * missing and the tests run as root (CI does). Returns the tool's path, or null with the reason
 * in $why, so the test can skip saying exactly what is missing and how to get it.
 */
final class DebianTool
{
    /** @var array<string, string|null> path by command, once looked up */
    private static array $found = [];
    /** @var array<string, string> why a command is missing */
    private static array $reasons = [];

    public static function find(string $command, string $package, ?string &$why = null): ?string
    {
        if (!\array_key_exists($command, self::$found)) {
            self::$found[$command] = self::lookup($command) ?? self::install($command, $package);
        }
        $why = self::$reasons[$command] ?? null;

        return self::$found[$command];
    }

    private static function lookup(string $command): ?string
    {
        foreach (explode(':', (string) getenv('PATH') . ':/usr/bin:/usr/sbin:/bin') as $dir) {
            if ($dir !== '' && is_file("{$dir}/{$command}") && is_executable("{$dir}/{$command}")) {
                return "{$dir}/{$command}";
            }
        }

        return null;
    }

    private static function install(string $command, string $package): ?string
    {
        if (!\function_exists('posix_geteuid') || posix_geteuid() !== 0) {
            self::$reasons[$command] = "'{$command}' is not installed and the tests do not run as root: install it with `sudo apt-get install -y {$package}` (or `make setup`).";

            return null;
        }
        $log = '';
        foreach (['apt-get update -qq', 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ' . escapeshellarg($package)] as $step) {
            $output = [];
            exec("timeout 600 {$step} 2>&1", $output, $code);
            $log .= implode("\n", \array_slice($output, -5)) . "\n";
            if ($code !== 0) {
                self::$reasons[$command] = "'{$command}' is not installed and `{$step}` failed (exit {$code}): {$log}";

                return null;
            }
        }
        $path = self::lookup($command);
        if ($path === null) {
            self::$reasons[$command] = "apt-get installed {$package} but '{$command}' is still not on the PATH.";
        }

        return $path;
    }
}
