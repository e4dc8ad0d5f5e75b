<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Bench\Files;

/**
 * Private temporary directories for store files, removed with everything in them.
 */
final class TempDirectory
{
    public static function create(string $prefix): string
    {
        $directory = sys_get_temp_dir() . '/' . $prefix . bin2hex(random_bytes(6));
        if (!mkdir($directory, 0o700)) {
            throw new \RuntimeException("Could not create the temporary directory {$directory}.");
        }

        return $directory;
    }

    public static function remove(string $path): void
    {
        Files::removeTree($path);
    }
}
