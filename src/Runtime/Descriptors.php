<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * What the loop can learn about a stream's descriptor number, which PHP 8.2 does not expose.
 *
 * stream_select() watches only descriptors below FD_SETSIZE (1,024): one stream numbered higher
 * makes every poll of the set fail. The kernel hands out the lowest free number, so a process
 * reaches the limit by holding about 1,024 descriptors of any kind: connections, links between
 * workers, database sockets, log files. Code that lets a new stream into the loop asks here first.
 *
 * - pollError(): whether stream_select() can watch the stream, by polling it alone (~0.5 µs);
 *   it names the descriptor when it is past the limit.
 * - numberFrom(): a socket's number when it is at or above a given one. On Linux one readlink()
 *   of /proc/self/fd/N (~3 µs) settles it while the process holds no descriptor numbered N; at
 *   the limit the number is found by matching the socket's inode against the links from N up to
 *   FD_SETSIZE (one readlink() each, so at most the reserve), and past FD_SETSIZE by the poll.
 */
final class Descriptors
{
    public const FD_SETSIZE = 1024;

    private static ?bool $procFd = null;

    private function __construct() {}

    /**
     * Null when stream_select() can watch $stream; otherwise why not ("descriptor 1031", "a closed
     * stream", "a stream that cannot be polled").
     *
     * @param resource|mixed $stream
     */
    public static function pollError(mixed $stream): ?string
    {
        if (!\is_resource($stream)) {
            return 'a closed stream';
        }
        for ($try = 0; $try < 3; ++$try) {
            $probe = [$stream];
            $none = null;
            error_clear_last();
            try {
                if (@stream_select($probe, $none, $none, 0) !== false) {
                    return null;
                }
            } catch (\TypeError|\ValueError) {
                return 'a stream that cannot be polled';
            }
            $message = error_get_last()['message'] ?? '';
            if (!str_contains($message, 'Interrupted system call')) {
                return preg_match('/numbered at least as high as (\d+)/', $message, $m) === 1
                    ? "descriptor {$m[1]}"
                    : 'a stream that cannot be polled';
            }
        }

        return null; // interrupted by signals three times in a row: nothing wrong with the stream
    }

    /**
     * The descriptor number of the socket $stream when it is $limit or more (a stream the loop
     * should not take), or null when it is below. Without /proc (not Linux) only FD_SETSIZE can be
     * told: a descriptor past it is still found, whatever $limit.
     *
     * @param resource $stream a socket: its inode identifies it in /proc/self/fd
     */
    public static function numberFrom(mixed $stream, int $limit): ?int
    {
        self::$procFd ??= is_dir('/proc/self/fd');
        if (self::$procFd && $limit < self::FD_SETSIZE) {
            // The kernel gives a new descriptor the lowest free number: while $limit is free,
            // every descriptor open is below it.
            if (@readlink("/proc/self/fd/{$limit}") === false) {
                return null;
            }
            $stat = @fstat($stream);
            $target = $stat === false ? '' : "socket:[{$stat['ino']}]";
            // The numbers from $limit up to this socket's were all taken when it was opened, so
            // the search ends at the socket, or at the first free number when it is below $limit.
            for ($number = $limit; $number < self::FD_SETSIZE; ++$number) {
                $link = @readlink("/proc/self/fd/{$number}");
                if ($link === $target) {
                    return $number;
                }
                if ($link === false) {
                    return null;
                }
            }
            // Every number up to FD_SETSIZE is taken and none is this socket's: it is below
            // $limit, or past FD_SETSIZE, which the poll below tells.
        }
        $error = self::pollError($stream);

        return $error !== null && preg_match('/^descriptor (\d+)$/', $error, $m) === 1 ? (int) $m[1] : null;
    }
}
