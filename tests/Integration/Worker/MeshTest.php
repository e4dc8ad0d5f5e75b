<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\Terminated;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Worker\Exception\UnregisteredMessageClassException;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\RemoteActorRef;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * Two workers of a pool in one process: each has its own actor system and its end of the links,
 * on one loop, over real Unix sockets in a real runtime directory.
 */
final class MeshTest extends TestCase
{
    use RunsTheLoop;

    private Loop $loop;
    private string $dir;
    private float $deadline;
    /** @var list<ActorSystem> */
    private array $systems = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->dir = sys_get_temp_dir() . '/nexus-mesh-test-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0o700);
        $this->deadline = microtime(true) + 10.0;
        $this->loop->unreference($this->loop->repeat(0.1, static function (): void {})); // lets checkLoop() run
    }

    protected function tearDown(): void
    {
        foreach ([$this->dir, $this->dir . '-never'] as $dir) {
            foreach (glob($dir . '/*') ?: [] as $file) {
                @unlink($file);
            }
            @rmdir($dir);
        }
    }

    protected function checkLoop(): void
    {
        if (microtime(true) > $this->deadline) {
            self::fail('The test did not finish within 10 s.');
        }
    }

    public function testTellsCrossInOrderAndRepliesComeBack(): void
    {
        $workers = [$this->worker(0), $this->worker(1)];
        $received = [];
        $collector = Behavior::receive(static function (int $n, ActorContext $ctx) use (&$received): void {
            $received[] = $n;
            if ($n === 999) {
                $ctx->reply('all');
            }
        });
        $owner = $workers[0]->ownerOf('collector');
        $workers[$owner]->named('collector', $collector);
        $remote = $workers[1 - $owner]->named('collector', $collector);

        self::assertInstanceOf(RemoteActorRef::class, $remote);
        self::assertSame($owner, $remote->worker);
        for ($i = 0; $i < 999; ++$i) {
            $remote->tell($i);
        }
        $reply = $remote->ask(999, 5.0);
        $this->runUntil(static fn(): bool => $reply->isSettled());

        self::assertSame('all', $reply->await());
        self::assertSame(range(0, 999), $received);
    }

    public function testAnAskToAPathWhereNoActorLivesFailsAtOnce(): void
    {
        [$w0] = [$this->worker(0), $this->worker(1)];
        $ask = $w0->remoteRef(1, '/user/nobody')->ask('hello', 5.0);
        $started = microtime(true);
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertLessThan(1.0, microtime(true) - $started);
        $this->expectException(RecipientTerminatedException::class);
        $this->expectExceptionMessage('no actor lives at /user/nobody on worker 1');
        $ask->await();
    }

    public function testAnUnansweredRemoteAskTimesOut(): void
    {
        [$w0, $w1] = [$this->worker(0), $this->worker(1)];
        $this->systems[1]->spawn(Behavior::ignore(), 'silent');
        $ask = $w0->remoteRef(1, '/user/silent')->ask('hello', 0.2);
        $this->runUntil(static fn(): bool => $ask->isSettled());

        $this->expectException(AskTimeoutException::class);
        $ask->await();
    }

    public function testEntitiesStartOnTheirOwnerOnFirstUseAndCountExactlyFromEveryWorker(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $counter = static fn(): Behavior => Behavior::withState(0, static function (int $value, string $op, ActorContext $ctx): int {
            $ctx->reply($op === 'increment' ? ++$value : $value);

            return $value;
        });
        $kinds = [$w0->kind('counter', $counter), $w1->kind('counter', $counter)];
        $names = ['apples', 'pears', 'plums', 'figs', 'kiwis', 'limes'];
        $asks = [];
        foreach ($names as $name) {
            for ($i = 0; $i < 20; ++$i) {
                $asks[] = $kinds[$i % 2]->ref($name)->ask('increment');
            }
        }
        $this->runUntil(static fn(): bool => array_filter($asks, static fn(Future $f): bool => !$f->isSettled()) === []);
        $totals = [];
        foreach ($names as $name) {
            $totals[$name] = $kinds[1]->ref($name)->ask('get');
        }
        $this->runUntil(static fn(): bool => array_filter($totals, static fn(Future $f): bool => !$f->isSettled()) === []);

        $owners = [];
        foreach ($names as $name) {
            self::assertSame(20, $totals[$name]->await(), "counter {$name}");
            $owner = $w0->ownerOf("counter/{$name}");
            $owners[$owner] = true;
            self::assertNotNull($this->systems[$owner]->lookup("/user/counter/{$name}"));
            self::assertNull($this->systems[1 - $owner]->lookup("/user/counter/{$name}"), "{$name} lives on one worker only");
        }
        self::assertCount(2, $owners, 'six names spread over both workers');
    }

    public function testObjectsCrossOnlyWhenTheirClassIsRegistered(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $got = null;
        $this->systems[1]->spawn(Behavior::receive(static function (Order $order, ActorContext $ctx) use (&$got): void {
            $got = $order;
            $ctx->reply(\count($order->items));
        }), 'shop');
        $shop = $w0->remoteRef(1, '/user/shop');
        $order = new Order('ada', [['tea', 2.5, 2]], 'silver');

        try {
            $shop->tell($order);
            self::fail('An unregistered class must not cross.');
        } catch (UnregisteredMessageClassException $e) {
            self::assertStringContainsString('registerMessage(' . Order::class . '::class)', $e->getMessage());
        }
        try {
            $shop->tell(['nested' => [new \ArrayObject()]]);
            self::fail('An unregistered class deep inside an array must not cross either.');
        } catch (UnregisteredMessageClassException) {
        }

        $w0->registerMessage(Order::class);
        $w1->registerMessage(Order::class);
        $reply = $shop->ask($order);
        $this->runUntil(static fn(): bool => $reply->isSettled());

        self::assertSame(1, $reply->await());
        self::assertInstanceOf(Order::class, $got);
        self::assertEquals($order, $got);
        self::assertSame('silver', $got->tier());
    }

    public function testMessagesWaitForAWorkerThatStartsLateAndBecomeDeadLettersWhenItNeverComes(): void
    {
        $w0 = $this->worker(0, undeliveredTimeout: 0.3);
        $late = $w0->remoteRef(1, '/user/late');
        $late->tell('early');
        $this->runFor(0.1);
        $got = [];
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::receive(static function (string $message) use (&$got): void {
            $got[] = $message;
        }), 'late');
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });
        self::assertSame(['early'], $got);

        $never = $this->worker(0, undeliveredTimeout: 0.3, count: 3, dir: $this->dir . '-never');
        $never->remoteRef(2, '/user/anyone')->tell('lost?');
        $ask = $never->remoteRef(2, '/user/anyone')->ask('anyone?', 5.0);
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertSame(2, $this->systems[2]->deadLetters->countFor(DeadLetterReason::WorkerUnavailable));
        $this->expectException(RecipientTerminatedException::class);
        $ask->await();
    }

    public function testARepliesToALocalAskComeBackThroughAnotherWorker(): void
    {
        $w0 = $this->worker(0);
        $w1 = $this->worker(1);
        $this->systems[1]->spawn(Behavior::receive(static function (string $message, ActorContext $ctx): void {
            $ctx->reply("echo: {$message}");
        }), 'echo');
        $remoteEcho = $w0->remoteRef(1, '/user/echo');
        $relay = $this->systems[0]->spawn(Behavior::receive(static function (string $message, ActorContext $ctx) use ($remoteEcho): void {
            $ctx->forward($remoteEcho);
        }), 'relay');
        $ask = $relay->ask('hi');
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertSame('echo: hi', $ask->await());
    }

    public function testALinkWithoutThePoolSecretIsClosedAndDeliversNothing(): void
    {
        $this->worker(0);
        $this->worker(1);
        $got = [];
        $this->systems[1]->spawn(Behavior::receive(static function (mixed $message) use (&$got): void {
            $got[] = $message;
        }), 'victim');
        $logger = $this->loggers[1];
        $client = stream_socket_client('unix://' . $this->dir . '/worker-1.sock');
        self::assertIsResource($client);
        $hello = '0 ' . (\function_exists('igbinary_serialize') ? 'igbinary' : 'serialize') . ' wrong-secret';
        fwrite($client, pack('NC', \strlen($hello), 1) . $hello);
        $this->runUntil(static fn(): bool => str_contains(implode("\n", $logger->messages('warning')), 'does not know the pool secret'));
        $this->runFor(0.05);

        self::assertSame([], $got);
        self::assertSame('', (string) fread($client, 100), 'the link was closed');
    }

    public function testMessagesAWorkerDidNotConfirmBeforeItsLinkBrokeBecomeDeadLetters(): void
    {
        $w0 = $this->worker(0);
        $impostor = stream_socket_server('unix://' . $this->dir . '/worker-1.sock');
        self::assertIsResource($impostor);
        $w0->remoteRef(1, '/user/anyone')->tell('maybe lost');
        $ask = $w0->remoteRef(1, '/user/anyone')->ask('anyone?', 5.0);
        $peer = null;
        $received = '';
        $this->runUntil(static function () use ($impostor, &$peer, &$received): bool {
            $peer ??= @stream_socket_accept($impostor, 0) ?: null;
            if ($peer !== null) {
                stream_set_blocking($peer, false);
                $received .= (string) fread($peer, 65536);
            }

            return substr_count($received, \chr(2) . pack('J', 1)) === 1; // the first batch arrived
        });
        \assert(\is_resource($peer));
        fclose($peer); // and the "worker" dies without acknowledging it
        $this->runUntil(static fn(): bool => $ask->isSettled());

        self::assertSame(2, $this->systems[0]->deadLetters->countFor(DeadLetterReason::WorkerLost));
        $this->expectException(RecipientTerminatedException::class);
        $ask->await();
    }

    public function testANamedActorIsFoundByLookupOnEveryWorker(): void
    {
        $workers = [$this->worker(0), $this->worker(1)];
        $owner = $workers[0]->ownerOf('books');
        $local = $workers[$owner]->named('books', Behavior::ignore());
        $remote = $workers[1 - $owner]->named('books', Behavior::ignore());

        self::assertSame($local, $this->systems[$owner]->lookup('/user/books'));
        self::assertSame($remote, $this->systems[1 - $owner]->lookup('/user/books'));
        self::assertInstanceOf(RemoteActorRef::class, $remote);
        self::assertNull($this->systems[1 - $owner]->lookup('/user/other'));
    }

    public function testAnActorWatchesAnActorOnAnotherWorkerAndGetsTerminatedOnce(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::ignore(), 'target');
        $target = $w0->remoteRef(1, '/user/target');
        $got = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($target, &$got): Behavior {
            $ctx->watch($target);

            return Behavior::receive(static function (mixed $message) use (&$got): void {
                $got[] = $message;
            });
        }), 'watcher');
        $this->runFor(0.05);
        self::assertCount(0, $got, 'nothing while the target lives');

        $target->tell(new PoisonPill());
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });
        $this->runFor(0.05);

        self::assertCount(1, $got);
        self::assertInstanceOf(Terminated::class, $got[0]);
        self::assertSame($target, $got[0]->ref, 'Terminated carries the ref that was watched');
    }

    public function testWatchingWhereNothingLivesEndsAtOnceAndUnwatchingStopsTheNotice(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $this->systems[1]->spawn(Behavior::ignore(), 'quiet');
        $nobody = $w0->remoteRef(1, '/user/nobody');
        $quiet = $w0->remoteRef(1, '/user/quiet');
        $got = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($nobody, $quiet, &$got): Behavior {
            $ctx->watch($nobody, 'nobody is gone');
            $ctx->watch($quiet, 'quiet is gone');
            $ctx->unwatch($quiet);

            return Behavior::receive(static function (mixed $message) use (&$got): void {
                $got[] = $message;
            });
        }), 'watcher');
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });
        $quiet->tell(new PoisonPill());
        $this->runFor(0.1);

        self::assertSame(['nobody is gone'], $got, 'the custom message, and nothing for the unwatched actor');
    }

    public function testLosingTheWorkerEndsTheWatch(): void
    {
        $w0 = $this->worker(0);
        $impostor = stream_socket_server('unix://' . $this->dir . '/worker-1.sock');
        self::assertIsResource($impostor);
        $remote = $w0->remoteRef(1, '/user/far');
        /** @var list<mixed> $got */
        $got = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($remote, &$got): Behavior {
            $ctx->watch($remote);

            return Behavior::receive(static function (mixed $message) use (&$got): void {
                $got[] = $message;
            });
        }), 'watcher');
        $peer = null;
        $this->runUntil(static function () use ($impostor, &$peer): bool {
            $peer ??= @stream_socket_accept($impostor, 0) ?: null;

            return $peer !== null;
        });
        $this->runFor(0.02);
        \assert(\is_resource($peer));
        fclose($peer); // worker 1 dies
        $this->runUntil(static function () use (&$got): bool {
            return $got !== [];
        });

        self::assertInstanceOf(Terminated::class, $got[0]);
        self::assertSame('/user/far', $got[0]->ref->path());
    }

    public function testASenderInAFiberWaitsWhileTheOtherWorkerDoesNotRead(): void
    {
        $w0 = $this->worker(0);
        $impostor = stream_socket_server('unix://' . $this->dir . '/worker-1.sock');
        self::assertIsResource($impostor);
        $remote = $w0->remoteRef(1, '/user/slow');
        $total = 100_000;
        $payload = str_repeat('x', 200); // 100,000 different 200-byte strings: far beyond the 4 MiB high-water mark
        $sent = 0;
        $done = $this->loop->async(static function () use ($remote, $payload, $total, &$sent): void {
            for ($i = 0; $i < $total; ++$i) {
                $remote->tell($i . $payload); // distinct, so that the codec cannot fold them into one
                ++$sent;
            }
        });
        $peer = null;
        $this->runUntil(static function () use ($impostor, &$peer): bool {
            $peer ??= @stream_socket_accept($impostor, 0) ?: null;

            return $peer !== null;
        });
        $this->runFor(0.2); // the "worker" reads nothing

        self::assertFalse($done->isSettled(), 'the sender waits');
        self::assertLessThan($total, $sent);
        self::assertGreaterThan(0, $sent);

        \assert(\is_resource($peer));
        stream_set_blocking($peer, false);
        $read = 0;
        $this->loop->onReadable($peer, static function ($stream) use (&$read): void {
            $read += \strlen((string) fread($stream, 1 << 20));
        });
        $this->runUntil(static fn(): bool => $done->isSettled());
        self::assertSame($total, $sent, 'once the other side reads, the sender goes on');
        self::assertGreaterThan(4 * 1024 * 1024, $read);
    }

    public function testAtAddressesAnActorAtAPathOnAnyWorker(): void
    {
        $w0 = $this->worker(0);
        $this->worker(1);
        $local = $this->systems[0]->spawn(Behavior::ignore(), 'cache');

        self::assertSame($local, $w0->at(0, '/user/cache'));
        self::assertNull($w0->at(0, '/user/none'));
        self::assertInstanceOf(RemoteActorRef::class, $w0->at(1, '/user/cache'));
        $this->expectException(\OutOfRangeException::class);
        $w0->at(2, '/user/cache');
    }

    /** @var array<int, MemoryLogger> */
    private array $loggers = [];

    private function worker(int $id, float $undeliveredTimeout = 5.0, int $count = 2, ?string $dir = null): Workers
    {
        $dir ??= $this->dir;
        if (!is_dir($dir)) {
            mkdir($dir, 0o700);
        }
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsArray($pair);
        $logger = new MemoryLogger();
        $system = new ActorSystem("worker-{$id}", $logger, $this->loop);
        $this->systems[] = $system;
        $this->loggers[\count($this->systems) - 1] = $logger;
        $context = new WorkerContext($id, $count, 1, new PoolOptions(workers: $count, undeliveredTimeout: $undeliveredTimeout), $dir, 'secret', null, $pair[1]);

        return $context->join($system);
    }
}
