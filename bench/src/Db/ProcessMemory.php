<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * Resident memory (VmRSS) of processes and all their descendants, from /proc (Linux only).
 */
final class ProcessMemory
{
    /**
     * The summed RSS in bytes of the given processes and their descendants, null when /proc
     * cannot be read.
     *
     * @param list<int> $roots
     */
    public static function treeRssBytes(array $roots): ?int
    {
        $parents = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $line = @file_get_contents($file);
            $close = \is_string($line) ? strrpos($line, ')') : false;
            if (!\is_string($line) || $close === false) {
                continue;
            }
            $fields = explode(' ', substr($line, $close + 2));
            $parents[(int) $line] = (int) ($fields[1] ?? 0);
        }
        if ($parents === []) {
            return null;
        }
        $tree = [];
        foreach ($roots as $root) {
            if (isset($parents[$root])) {
                $tree[$root] = true;
            }
        }
        do {
            $grew = false;
            foreach ($parents as $pid => $ppid) {
                if (!isset($tree[$pid]) && isset($tree[$ppid])) {
                    $tree[$pid] = true;
                    $grew = true;
                }
            }
        } while ($grew);
        $bytes = 0;
        foreach (array_keys($tree) as $pid) {
            $bytes += self::rss($pid);
        }

        return $bytes;
    }

    private static function rss(int $pid): int
    {
        $status = @file_get_contents("/proc/{$pid}/status");
        if (\is_string($status) && preg_match('/^VmRSS:\s+(\d+)\s+kB/m', $status, $match) === 1) {
            return (int) $match[1] * 1024;
        }

        return 0;
    }
}
