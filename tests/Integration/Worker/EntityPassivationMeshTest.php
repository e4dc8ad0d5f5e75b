<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Persistence\Persistence;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;
use Nexus\Worker\EntitySettings;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * Entities passivated on their worker, reached from the other worker of the pool: two workers
 * in one process, over real Unix sockets, on a real clock.
 */
final class EntityPassivationMeshTest extends TestCase
{
    use RunsWorkers;

    public function testAnEntityPassivatedOnItsWorkerRecoversForAMessageFromTheOtherWorker(): void
    {
        $workers = [$this->worker(0), $this->worker(1)];
        $kinds = [];
        foreach ($workers as $i => $w) {
            $persistence = Persistence::inMemory($this->systems[$i]);
            $kinds[] = $w->kind('ledger', static fn(string $id): Behavior => Ledger::behavior($persistence, "ledger|{$id}")->behavior(), new EntitySettings(idleTimeout: 0.2));
        }
        $id = $this->idOwnedBy($workers[0], 'ledger', 1);
        $remote = $kinds[0]->ref($id);

        self::assertSame(2, $this->ask($remote->ask(['add', 2])));
        self::assertSame(5, $this->ask($remote->ask(['add', 3])));
        self::assertSame(1, $kinds[1]->activeCount());
        $kind = $kinds[1];
        $this->runUntil(static fn(): bool => $kind->activeCount() === 0);

        self::assertNull($this->systems[1]->lookup("/user/ledger/{$id}"), 'passivated on its worker');
        self::assertSame(9, $this->ask($remote->ask(['add', 4])), 'the next message from the other worker starts it again, recovered');
        self::assertSame(1, $kinds[1]->activeCount());
    }

    public function testAStartRefusedAtTheLimitFailsTheRemoteAskAtOnce(): void
    {
        $workers = [$this->worker(0), $this->worker(1)];
        $release = new Deferred($this->loop);
        $holding = false;
        $settings = new EntitySettings(idleTimeout: null, maxActive: 1);
        $busy = static function (string $id) use ($release, &$holding): Behavior {
            return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($release, &$holding): void {
                if ($message === 'hold') {
                    $holding = true;
                    $release->future()->await();
                }
                $ctx->reply($message);
            });
        };
        $kinds = [$workers[0]->kind('busy', $busy, $settings), $workers[1]->kind('busy', $busy, $settings)];
        $first = $this->idOwnedBy($workers[0], 'busy', 1);
        $second = $this->idOwnedBy($workers[0], 'busy', 1, $first);
        // The first entity waits in its handler, with a message queued behind: it is not idle.
        $held = $kinds[0]->ref($first)->ask('hold', 10.0);
        $this->runUntil(static function () use (&$holding): bool {
            return $holding;
        });
        $queued = $kinds[1]->ref($first)->ask('queued', 10.0);

        $refused = $kinds[0]->ref($second)->ask('hello', 10.0);
        $started = microtime(true);
        $this->runUntil(static fn(): bool => $refused->isSettled());
        self::assertLessThan(5.0, microtime(true) - $started, 'the ask failed at once, not at its timeout');
        try {
            $refused->await();
            self::fail('a second entity started past the limit');
        } catch (NotDeliveredException $e) {
            self::assertStringContainsString("busy entity {$second} cannot start: 1 are alive on worker 1", $e->getMessage());
        }

        $release->resolve(null);
        self::assertSame('hold', $this->ask($held));
        self::assertSame('queued', $this->ask($queued), 'what the busy entity had waiting was handled');
        self::assertSame('hello', $this->ask($kinds[0]->ref($second)->ask('hello', 10.0)), 'once it is idle, it makes room');
    }

    /**
     * @param Future<mixed> $future
     */
    private function ask(Future $future): mixed
    {
        $this->runUntil(static fn(): bool => $future->isSettled());

        return $future->await();
    }

    private function idOwnedBy(Workers $workers, string $kind, int $owner, string $not = ''): string
    {
        for ($i = 0; ; ++$i) {
            $id = "e{$i}";
            if ($id !== $not && $workers->ownerOf("{$kind}/{$id}") === $owner) {
                return $id;
            }
        }
    }
}
