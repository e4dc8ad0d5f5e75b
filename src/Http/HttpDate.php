<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * The Date header value (RFC 9110 §5.6.7 IMF-fixdate), formatted at most once per second.
 */
final class HttpDate
{
    private static int $second = -1;

    private static string $value = '';

    /** IMF-fixdate for $time (default: now), e.g. "Sun, 06 Nov 1994 08:49:37 GMT". */
    public static function now(?int $time = null): string
    {
        $time ??= time();
        if ($time !== self::$second) {
            self::$value = self::format($time);
            self::$second = $time;
        }

        return self::$value;
    }

    public static function format(int $timestamp): string
    {
        return gmdate('D, d M Y H:i:s', $timestamp) . ' GMT';
    }
}
