<?php

declare(strict_types=1);

// Writes tagged events from many actors at once, for the read-side tests: ACTORS ledgers named
// PREFIX-1..ACTORS each persist COUNT events tagged 'load', one command after the other, all
// ledgers concurrently (so that the group commit batches them).
//
// php tagged-writer.php STORE PREFIX ACTORS COUNT

use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Runtime\Future;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;

require __DIR__ . '/../../../../vendor/autoload.php';

[, $storeSpec, $prefix, $actors, $count] = $argv;
$system = new ActorSystem('tagged-writer', new MemoryLogger());
$persistence = str_starts_with($storeSpec, 'sqlite:')
    ? Persistence::sqlite($system, substr($storeSpec, 7))
    : Persistence::postgres($system, PostgresUrl::parse($storeSpec));

$loops = [];
for ($a = 1; $a <= (int) $actors; ++$a) {
    $ref = $system->spawn(Ledger::behavior($persistence, "{$prefix}-{$a}")->withTagger(static fn(object $event): array => ['load'])->behavior());
    $loops[] = $system->loop->async(static function () use ($ref, $count): int {
        $acknowledged = 0;
        for ($i = 0; $i < (int) $count; ++$i) {
            $reply = $ref->ask(['add', 1], 20.0)->await();
            if (\is_int($reply)) {
                ++$acknowledged;
            } else {
                fwrite(STDERR, 'not acknowledged: ' . var_export($reply, true) . "\n");
            }
        }

        return $acknowledged;
    });
}
$acknowledged = array_sum(Future::all($loops)->await(60.0));
$system->shutdown()->await(10.0);
echo $acknowledged, "\n";
