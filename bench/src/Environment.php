<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * What the figures were measured on.
 */
final readonly class Environment
{
    private function __construct(
        public int $cores,
        public string $cpu,
        public string $php,
        public bool $jit,
    ) {}

    public static function detect(): self
    {
        return new self(self::cores(), self::cpuModel(), \PHP_VERSION, self::jitEnabled());
    }

    /**
     * Whether the OPcache JIT compiles this process's code right now.
     */
    public static function jitEnabled(): bool
    {
        if (!\function_exists('opcache_get_status')) {
            return false;
        }
        $status = opcache_get_status(false);
        if (!\is_array($status) || !\is_array($status['jit'] ?? null)) {
            return false;
        }

        return ($status['jit']['on'] ?? false) === true;
    }

    /**
     * What nproc says (the CPUs this process may run on), else the processors in /proc/cpuinfo.
     */
    private static function cores(): int
    {
        if (\function_exists('shell_exec')) {
            $nproc = (int) trim((string) @shell_exec('nproc 2>/dev/null'));
            if ($nproc > 0) {
                return $nproc;
            }
        }
        $cpuinfo = @file_get_contents('/proc/cpuinfo');
        if (\is_string($cpuinfo)) {
            $count = preg_match_all('/^processor\s*:/m', $cpuinfo);
            if (\is_int($count) && $count > 0) {
                return $count;
            }
        }

        return 1;
    }

    private static function cpuModel(): string
    {
        $cpuinfo = @file_get_contents('/proc/cpuinfo');
        if (\is_string($cpuinfo) && preg_match('/^model name\s*:\s*(.+)$/m', $cpuinfo, $match) === 1) {
            return trim($match[1]);
        }

        return php_uname('m');
    }
}
