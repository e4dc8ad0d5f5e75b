<?php

declare(strict_types=1);

// One process of the "two activations write at once" test: recovers the ledger, waits until the
// other process has recovered too, then sends $count commands one after the other. A command
// refused because the other process wrote first (ConcurrentWriteException) stops the activation;
// a new one recovers and the command is sent again, as an entity would be. Prints a JSON summary.
//
// php concurrent-writer.php STORE ID COUNT READY_FILE OTHER_READY_FILE
//   STORE: sqlite:/path/to/file or postgres://user@host:port/db

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Signal\Signal;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Signal\RecoveryCompleted;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Runtime\Deferred;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;

require __DIR__ . '/../../../../vendor/autoload.php';

[, $storeSpec, $id, $count, $readyFile, $otherReadyFile] = $argv;
$system = new ActorSystem('writer', new MemoryLogger());
$persistence = str_starts_with($storeSpec, 'sqlite:')
    ? Persistence::sqlite($system, substr($storeSpec, 7))
    : Persistence::postgres($system, PostgresUrl::parse($storeSpec));
$loop = $system->loop;

$activate = static function () use ($system, $persistence, $id): ActorRef {
    /** @var Deferred<null> $recovered */
    $recovered = new Deferred($system->loop);
    $ref = $system->spawn(Ledger::behavior($persistence, $id)->onSignal(static function (Signal $signal) use ($recovered): void {
        if ($signal instanceof RecoveryCompleted) {
            $recovered->tryResolve(null);
        }
    })->behavior());
    $recovered->future()->await(20.0);

    return $ref;
};

$ledger = $activate();
touch($readyFile);
/** @var Deferred<null> $bothReady */
$bothReady = new Deferred($loop);
$poll = $loop->repeat(0.002, static function () use ($otherReadyFile, $bothReady): void {
    if (is_file($otherReadyFile)) {
        $bothReady->tryResolve(null);
    }
});
$bothReady->future()->await(20.0);
$loop->cancel($poll);

$acknowledged = 0;
$fenced = 0;
for ($i = 0; $i < (int) $count; ++$i) {
    while (true) {
        $reply = $ledger->ask(['add', 1], 20.0)->await(25.0);
        if (\is_int($reply)) {
            ++$acknowledged;
            break;
        }
        if ($reply instanceof CommandFailed && $reply->kind === ConcurrentWriteException::class) {
            ++$fenced;
            $ledger = $activate();
            continue;
        }
        fwrite(STDERR, 'unexpected reply: ' . var_export($reply, true) . "\n");
        $logger = $system->logger;
        if ($logger instanceof MemoryLogger) {
            foreach ($logger->records as $record) {
                $exception = $record['context']['exception'] ?? null;
                fwrite(STDERR, $record['level'] . ': ' . $record['message'] . ($exception instanceof Throwable ? "\n" . $exception . "\n" : '') . "\n");
            }
        }
        exit(1);
    }
}
$system->shutdown()->await(10.0);
echo json_encode(['acknowledged' => $acknowledged, 'fenced' => $fenced]), "\n";
