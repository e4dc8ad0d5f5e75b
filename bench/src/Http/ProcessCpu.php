<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * CPU time (user + system) of processes and their descendants, from /proc (Linux only).
 */
final class ProcessCpu
{
    private const TICKS_PER_SECOND = 100;

    /**
     * The CPU seconds used so far by the given processes and all their descendants, or null
     * when /proc cannot be read.
     *
     * @param list<int> $roots
     */
    public static function treeSeconds(array $roots): ?float
    {
        $stats = [];
        $parents = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = self::read($file);
            if ($stat !== null) {
                $stats[$stat['pid']] = $stat['ticks'];
                $parents[$stat['pid']] = $stat['ppid'];
            }
        }
        if ($stats === []) {
            return null;
        }
        $tree = [];
        foreach ($roots as $root) {
            $tree[$root] = true;
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
        $ticks = 0;
        foreach (array_keys($tree) as $pid) {
            $ticks += $stats[$pid] ?? 0;
        }

        return $ticks / self::TICKS_PER_SECOND;
    }

    /**
     * @return array{pid: int, ppid: int, ticks: int}|null
     */
    private static function read(string $file): ?array
    {
        $line = @file_get_contents($file);
        if (!\is_string($line)) {
            return null;
        }
        // The command name (field 2) is in parentheses and may contain spaces.
        $close = strrpos($line, ')');
        if ($close === false) {
            return null;
        }
        $fields = explode(' ', trim(substr($line, $close + 2)));
        // After the name: state(3) ppid(4) ... utime(14) stime(15).
        if (\count($fields) < 13) {
            return null;
        }

        return ['pid' => (int) $line, 'ppid' => (int) $fields[1], 'ticks' => (int) $fields[11] + (int) $fields[12]];
    }
}
