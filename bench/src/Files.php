<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * File-system chores of the benchmark runners.
 */
final class Files
{
    /**
     * Deletes a file, or a directory with everything in it (the temporary directory of a run).
     */
    public static function removeTree(string $path): void
    {
        if (is_link($path) || is_file($path)) {
            @unlink($path);

            return;
        }
        if (!is_dir($path)) {
            return;
        }
        foreach (scandir($path) ?: [] as $entry) {
            if ($entry !== '.' && $entry !== '..') {
                self::removeTree("{$path}/{$entry}");
            }
        }
        @rmdir($path);
    }
}
