<?php

declare(strict_types=1);

namespace Nexus\Runtime\Driver;

/**
 * Picks the loop's readiness driver: epoll (through FFI) where it works, stream_select()
 * otherwise; the environment variable NEXUS_LOOP_DRIVER=epoll|stream_select forces one (epoll
 * where it is unavailable is an error that says why).
 *
 * Before the first epoll driver, the soft descriptor limit (RLIMIT_NOFILE) is raised to the hard
 * limit where the process may (posix_setrlimit()); the driver's capacity is what it ends at. A
 * process that cannot raise it keeps the soft limit it was given, and the capacity says so.
 */
final class DriverFactory
{
    public const ENV = 'NEXUS_LOOP_DRIVER';

    private static ?string $choice = null;
    private static ?int $limit = null;

    private function __construct() {}

    public static function create(): PollDriver
    {
        return self::choice() === 'epoll' ? new EpollDriver(self::descriptorLimit()) : new StreamSelectDriver();
    }

    /**
     * "epoll" or "stream_select": what create() makes in this process.
     */
    public static function choice(): string
    {
        if (self::$choice !== null) {
            return self::$choice;
        }
        $forced = getenv(self::ENV);
        $forced = \is_string($forced) ? strtolower(trim($forced)) : '';
        if ($forced === 'stream_select' || $forced === 'select') {
            return self::$choice = 'stream_select';
        }
        $reason = EpollDriver::unsupportedReason();
        if ($forced === 'epoll' && $reason !== null) {
            throw new \RuntimeException(self::ENV . "=epoll, but epoll cannot be used here: {$reason}. Unset it to fall back to stream_select.");
        }
        if ($forced !== '' && $forced !== 'epoll') {
            throw new \InvalidArgumentException(self::ENV . "={$forced} names no driver; use epoll or stream_select.");
        }

        return self::$choice = $reason === null ? 'epoll' : 'stream_select';
    }

    /**
     * Why epoll is not used (null when it is).
     */
    public static function fallbackReason(): ?string
    {
        if (self::choice() === 'epoll') {
            return null;
        }
        $reason = EpollDriver::unsupportedReason();

        return $reason ?? self::ENV . ' asks for stream_select';
    }

    /**
     * One line for a start-up banner: "epoll, up to 19,968 connections (RLIMIT_NOFILE 20,000)".
     */
    public static function describe(int $reserved = 32): string
    {
        if (self::choice() === 'epoll') {
            $limit = self::descriptorLimit();

            return \sprintf('epoll, up to %s connections (descriptor limit %s)', number_format(max(1, $limit - $reserved)), number_format($limit));
        }

        return \sprintf('stream_select, up to %s connections (%s)', number_format(1024 - $reserved), self::fallbackReason());
    }

    /**
     * The soft descriptor limit after raising it to the hard limit where allowed (once per process).
     */
    public static function descriptorLimit(): int
    {
        return self::$limit ??= self::raiseDescriptorLimit();
    }

    private static function raiseDescriptorLimit(): int
    {
        if (!\function_exists('posix_getrlimit')) {
            return 1024;
        }
        $limits = posix_getrlimit();
        $soft = self::limitValue(\is_array($limits) ? ($limits['soft openfiles'] ?? null) : null);
        $hard = self::limitValue(\is_array($limits) ? ($limits['hard openfiles'] ?? null) : null);
        if ($hard === null) {
            // RLIM_INFINITY: the kernel still caps descriptors at fs.nr_open.
            $nrOpen = @file_get_contents('/proc/sys/fs/nr_open');
            $hard = $nrOpen === false ? 1 << 20 : (int) trim($nrOpen);
        }
        if ($soft !== null && $soft >= $hard) {
            return $soft;
        }
        if (\function_exists('posix_setrlimit') && @posix_setrlimit(\POSIX_RLIMIT_NOFILE, $hard, $hard)) {
            return $hard;
        }

        return $soft ?? 1024;
    }

    private static function limitValue(mixed $value): ?int
    {
        if ($value === 'unlimited' || $value === null || !is_numeric($value)) {
            return null;
        }

        return (int) $value;
    }
}
