<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * Makes sure a long-running command runs with OPcache and the tracing JIT: when they are off (the
 * PHP CLI default), the process replaces itself with the same command line under
 * `php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M`. An
 * environment variable marks the second start, so that a PHP build without a working JIT is not
 * restarted forever.
 */
final class JitReexec
{
    public const MARKER = 'NEXUS_JIT_REEXEC';
    /** @var array<string, string> */
    public const SETTINGS = [
        'opcache.enable_cli' => '1',
        'opcache.jit' => 'tracing',
        'opcache.jit_buffer_size' => '64M',
    ];

    /**
     * Whether this process runs with OPcache and a JIT switched on.
     */
    public static function isActive(): bool
    {
        if (!\function_exists('opcache_get_status')) {
            return false;
        }
        $status = opcache_get_status(false);
        $jit = \is_array($status) ? ($status['jit'] ?? null) : null;

        return \is_array($jit) && ($jit['on'] ?? false) === true;
    }

    /**
     * Replaces the process with one that has the JIT on, if it is off and this is not already the
     * second start. Returns why it did not (for the user), or never returns.
     *
     * @param list<string> $argv the full command line, script first
     */
    public static function ensure(array $argv): ?string
    {
        if (self::isActive()) {
            return null;
        }
        if (getenv(self::MARKER) !== false) {
            return 'OPcache/JIT could not be switched on (is the opcache extension installed? Debian: php8.2-opcache); running without the JIT.';
        }
        if (!\function_exists('pcntl_exec')) {
            return 'cannot restart with the JIT: the pcntl extension is missing; running without it (or pass the -d opcache.* settings yourself).';
        }
        $arguments = [];
        if (!\extension_loaded('Zend OPcache')) {
            $arguments[] = '-d';
            $arguments[] = 'zend_extension=opcache';
        }
        foreach (self::SETTINGS as $name => $value) {
            $arguments[] = '-d';
            $arguments[] = "{$name}={$value}";
        }
        $environment = getenv();
        $environment[self::MARKER] = '1';
        @pcntl_exec(\PHP_BINARY, [...$arguments, ...$argv], $environment);

        return 'restarting with the JIT failed (' . (pcntl_strerror(pcntl_get_last_error())) . '); running without it.';
    }
}
