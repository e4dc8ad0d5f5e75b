<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * Processes and all their descendants, read from /proc (Linux only): the CPU time and the resident
 * memory of a server together with its workers.
 */
final class ProcessTree
{
    private const TICKS_PER_SECOND = 100;

    /**
     * CPU seconds (user + system) used so far by $roots and their descendants; null without /proc.
     *
     * @param list<int> $roots
     */
    public static function cpuSeconds(array $roots): ?float
    {
        $stats = self::stats();
        if ($stats === null) {
            return null;
        }
        $ticks = 0;
        foreach (self::members($roots, $stats) as $pid) {
            $ticks += $stats[$pid]['ticks'];
        }

        return $ticks / self::TICKS_PER_SECOND;
    }

    /**
     * The summed resident memory (VmRSS) of $roots and their descendants; null without /proc.
     *
     * @param list<int> $roots
     */
    public static function rssBytes(array $roots): ?int
    {
        $stats = self::stats();
        if ($stats === null) {
            return null;
        }
        $bytes = 0;
        foreach (self::members($roots, $stats) as $pid) {
            $status = @file_get_contents("/proc/{$pid}/status");
            if (\is_string($status) && preg_match('/^VmRSS:\s+(\d+)\s+kB/m', $status, $match) === 1) {
                $bytes += (int) $match[1] * 1024;
            }
        }

        return $bytes;
    }

    /**
     * The open file descriptors of $roots and their descendants, summed; null without /proc.
     *
     * @param list<int> $roots
     */
    public static function openDescriptors(array $roots): ?int
    {
        $stats = self::stats();
        if ($stats === null) {
            return null;
        }
        $count = 0;
        foreach (self::members($roots, $stats) as $pid) {
            $count += \count(@scandir("/proc/{$pid}/fd") ?: ['.', '..']) - 2;
        }

        return $count;
    }

    /**
     * The processes whose parent is $parent (its direct children), alive now.
     *
     * @return list<int>
     */
    public static function children(int $parent): array
    {
        $children = [];
        foreach (self::stats() ?? [] as $pid => $stat) {
            if ($stat['ppid'] === $parent) {
                $children[] = $pid;
            }
        }
        sort($children);

        return $children;
    }

    /**
     * @param list<int>                                  $roots
     * @param array<int, array{ppid: int, ticks: int}> $stats
     *
     * @return list<int> the roots that are alive and all their descendants
     */
    private static function members(array $roots, array $stats): array
    {
        $tree = [];
        foreach ($roots as $root) {
            if (isset($stats[$root])) {
                $tree[$root] = true;
            }
        }
        do {
            $grew = false;
            foreach ($stats as $pid => $stat) {
                if (!isset($tree[$pid]) && isset($tree[$stat['ppid']])) {
                    $tree[$pid] = true;
                    $grew = true;
                }
            }
        } while ($grew);

        return array_keys($tree);
    }

    /**
     * @return array<int, array{ppid: int, ticks: int}>|null every process's parent and CPU ticks
     */
    private static function stats(): ?array
    {
        $stats = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $line = @file_get_contents($file);
            // The command name (field 2) is in parentheses and may contain spaces.
            $close = \is_string($line) ? strrpos($line, ')') : false;
            if (!\is_string($line) || $close === false) {
                continue;
            }
            // After the name: state(3) ppid(4) ... utime(14) stime(15).
            $fields = explode(' ', trim(substr($line, $close + 2)));
            if (\count($fields) >= 13) {
                $stats[(int) $line] = ['ppid' => (int) $fields[1], 'ticks' => (int) $fields[11] + (int) $fields[12]];
            }
        }

        return $stats === [] ? null : $stats;
    }
}
