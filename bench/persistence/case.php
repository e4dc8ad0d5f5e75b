<?php

declare(strict_types=1);

/*
 * One case of `make bench-persistence`, in a process of its own (run by bench/persistence/run.php):
 * php bench/persistence/case.php CASE STORE ACTORS EVENTS [REPEATS]
 *   STORE: sqlite:/path/to/file or postgres://user@host:port/db
 * Prints one JSON object with the figures.
 */

use Nexus\Bench\Persistence\PersistenceCases;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

if ($argc < 5) {
    fwrite(STDERR, "Usage: php bench/persistence/case.php single|concurrent|recovery-one|recovery-many STORE ACTORS EVENTS [REPEATS]\n");
    exit(2);
}
[, $case, $store, $actors, $events] = $argv;
$result = (new PersistenceCases($store, (int) ($argv[5] ?? 3)))->run($case, (int) $actors, (int) $events);
echo json_encode(['case' => $case, 'jit' => Nexus\Bench\Environment::jitEnabled(), ...$result], JSON_THROW_ON_ERROR), "\n";
