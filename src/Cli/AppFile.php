<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Persistence\StoreLocation;
use Nexus\Worker\Workers;

/**
 * Loads an application file: a PHP file that returns
 * fn(Nexus\Http\Application $app, Nexus\Actor\ActorSystem $system, Nexus\Worker\Workers $workers, Nexus\Persistence\StoreLocation $store): void
 * (the last parameters may be left out; $store->open($system) gives the Persistence of the worker).
 * The file is loaded once; the closure runs in every worker.
 */
final class AppFile
{
    /**
     * @return \Closure(Application, ActorSystem, Workers): void
     */
    public static function load(string $path, ?StoreLocation $store = null): \Closure
    {
        if (!is_file($path) || !is_readable($path)) {
            throw new UsageException("The application file '{$path}' does not exist or cannot be read.");
        }
        $configure = (static fn(string $file): mixed => require $file)($path);
        if (!$configure instanceof \Closure) {
            throw new UsageException(sprintf(
                "The application file '%s' must return a closure fn(Nexus\\Http\\Application \$app, Nexus\\Actor\\ActorSystem \$system): void, but it returned %s.",
                $path,
                get_debug_type($configure),
            ));
        }

        $store ??= StoreLocation::sqlite('./var/' . StoreLocation::SQLITE_FILE);

        return static function (Application $app, ActorSystem $system, Workers $workers) use ($configure, $store): void {
            $configure($app, $system, $workers, $store);
        };
    }
}
