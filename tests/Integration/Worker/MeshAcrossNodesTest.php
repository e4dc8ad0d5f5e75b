<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Message\Terminated;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\Slots;
use Nexus\Worker\Transport\Frames;
use Nexus\Worker\Transport\FrameType;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * The machine boundary is the process boundary over another transport: workers of two nodes talk
 * over TCP on loopback with the same frames, handshake, acknowledgements and failures as the
 * workers of one machine over Unix sockets.
 */
final class MeshAcrossNodesTest extends TestCase
{
    use RunsWorkers;


    public function testTellsCrossNodesInOrderAndAsksComeBackOverTcp(): void
    {
        $a = $this->nodeWorker(5, 0);
        $this->nodeWorker(9, 0);
        $received = [];
        $this->systems[1]->spawn(Behavior::receive(static function (int $n, ActorContext $ctx) use (&$received): void {
            $received[] = $n;
            if ($n === 999) {
                $ctx->reply(['all', $ctx->sender()?->path()]);
            }
        }), 'collector');
        $remote = $a->remoteRef(Slots::id(9, 0), '/user/collector');
        for ($i = 0; $i < 999; ++$i) {
            $remote->tell($i);
        }
        $reply = $remote->ask(999, 5.0);
        $this->runUntil(static fn(): bool => $reply->isSettled());

        $answer = $reply->await();
        self::assertIsArray($answer);
        self::assertSame('all', $answer[0]);
        self::assertSame(range(0, 999), $received);
        self::assertStringStartsWith('tcp://127.0.0.1:', $this->addresses[Slots::id(9, 0)]);
        self::assertSame(0, $this->mesh($a)->tableSizes()['replies'], 'the reply address was freed');
    }

    public function testARemoteSenderIsAnsweredAcrossNodesAndDeathWatchWorks(): void
    {
        $a = $this->nodeWorker(5, 0);
        $this->nodeWorker(9, 1);
        $echo = $this->systems[1]->spawn(Behavior::receive(static function (string $text, ActorContext $ctx): ?Behavior {
            $ctx->reply("echo {$text}");

            return $text === 'stop' ? Behavior::stopped() : null;
        }), 'echo');
        $remoteEcho = $a->remoteRef(Slots::id(9, 1), '/user/echo');
        $seen = [];
        $this->systems[0]->spawn(Behavior::setup(static function (ActorContext $ctx) use ($remoteEcho, &$seen): Behavior {
            $ctx->watch($remoteEcho);
            $remoteEcho->tell('hello');

            return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($remoteEcho, &$seen): void {
                $seen[] = $message instanceof Terminated ? 'terminated ' . $message->ref->path() : $message;
                if ($message === 'echo hello') {
                    $remoteEcho->tell('stop');
                }
            });
        }), 'asker');
        $this->runUntil(static function () use (&$seen): bool {
            return \count($seen) >= 3;
        });

        self::assertSame(['echo hello', 'echo stop', 'terminated /user/echo'], $seen);
        self::assertTrue($echo->path() === '/user/echo');
    }

    public function testANodeWithoutTheClusterSecretGetsNothingAndItsMessagesBecomeDeadLetters(): void
    {
        $this->nodeWorker(5, 0);
        $got = [];
        $this->systems[0]->spawn(Behavior::receive(static function (mixed $message) use (&$got): void {
            $got[] = $message;
        }), 'victim');
        $impostor = $this->nodeWorker(9, 0, secret: 'another-secret-another-secret-00', undeliveredTimeout: 0.5);
        $dead = [];
        $this->systems[1]->eventStream->subscribe($this->systems[1]->spawn(Behavior::receive(static function (DeadLetter $letter) use (&$dead): void {
            $dead[] = $letter;
        })), DeadLetter::class);
        $ask = $impostor->remoteRef(Slots::id(5, 0), '/user/victim')->ask('let me in', 5.0);
        $impostor->remoteRef(Slots::id(5, 0), '/user/victim')->tell('let me in too');
        $this->runUntil(static function () use (&$dead, $ask): bool {
            return \count($dead) >= 2 && $ask->isSettled();
        });

        self::assertSame([], $got);
        self::assertSame([DeadLetterReason::WorkerUnavailable, DeadLetterReason::WorkerUnavailable], array_map(static fn(DeadLetter $l): DeadLetterReason => $l->reason, $dead));
        self::assertTrue($this->logged(1, 'warning', 'does not know the pool secret'), 'the node it dialled failed its proof');
        $this->expectException(NotDeliveredException::class);
        $ask->await();
    }

    public function testBeforeItHasProvedItselfAPeerOnTheNetworkMaySendOnlyAHandshakeSizedFrameAndGetsNothing(): void
    {
        $this->nodeWorker(5, 0);
        $address = $this->addresses[Slots::id(5, 0)];
        $big = LinkPeer::client($address, self::SECRET, Slots::id(9, 0));
        $big->send(pack('NC', 64 * 1024 * 1024, FrameType::Hello->value) . str_repeat('a', 65_536));
        $this->runUntil(static fn(): bool => $big->poll()->closedByOtherSide);
        self::assertTrue($this->logged(0, 'warning', 'exceeds the limit of 512 bytes'));
        self::assertSame('', $big->received, 'not a byte back');

        $stranger = LinkPeer::client($address, self::SECRET, 7);
        $stranger->send(Frames::encode(FrameType::Batch, str_repeat("\0", 9)));
        $this->runUntil(static fn(): bool => $stranger->poll()->closedByOtherSide);
        self::assertSame('', $stranger->received, 'a batch before the handshake gets nothing');
    }

    public function testARecordedHandshakeReplayedOverTcpFails(): void
    {
        $this->nodeWorker(5, 0);
        $got = [];
        $this->systems[0]->spawn(Behavior::receive(static function (mixed $message) use (&$got): void {
            $got[] = $message;
        }), 'victim');
        $address = $this->addresses[Slots::id(5, 0)];
        $genuine = LinkPeer::client($address, self::SECRET, Slots::id(9, 0));
        $genuine->hello();
        $this->runUntil(static fn(): bool => str_contains($genuine->poll()->sent, \chr(FrameType::Proof->value)));
        $genuine->sendMessage(1, '/user/victim', 'genuine');
        $this->runUntil(static function () use (&$got): bool {
            return $got === ['genuine'];
        });

        $replay = LinkPeer::client($address, 'not-the-secret-not-the-secret-00', Slots::id(9, 0));
        $replay->send($genuine->sent);
        $this->runUntil(fn(): bool => $replay->poll()->closedByOtherSide && $this->logged(0, 'warning', 'its proof does not match'));
        self::assertSame(['genuine'], $got);
    }
}
