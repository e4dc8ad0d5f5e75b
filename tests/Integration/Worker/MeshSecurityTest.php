<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Worker\Transport\Frames;
use Nexus\Worker\Transport\FrameType;
use PHPUnit\Framework\TestCase;

/**
 * Only workers the master started get in: a challenge-response over fresh nonces from both sides
 * (the secret never crosses), a worker number from 0 to count-1, and frames no larger than a
 * handshake until then.
 */
final class MeshSecurityTest extends TestCase
{
    use RunsWorkers;

    /** @var list<mixed> */
    private array $got = [];

    public function testAWorkerThatProvesTheSecretGetsInAndAByteForByteReplayDoesNot(): void
    {
        $this->victim();
        $genuine = LinkPeer::client($this->dir . '/worker-1.sock', self::SECRET, 0);
        $genuine->hello();
        $this->runUntil(static fn(): bool => str_contains($genuine->poll()->sent, \chr(FrameType::Proof->value)));
        $genuine->sendMessage(1, '/user/victim', 'genuine');
        $this->runUntil(fn(): bool => $this->got === ['genuine']);
        self::assertStringNotContainsString(self::SECRET, $genuine->sent . $genuine->received, 'the secret never crosses the link');
        self::assertStringNotContainsString(bin2hex(self::SECRET), $genuine->sent . $genuine->received);

        $replay = LinkPeer::client($this->dir . '/worker-1.sock', 'not-the-secret-not-the-secret-00', 0);
        $replay->send($genuine->sent); // Hello, Proof and the batch, exactly as recorded
        $this->runUntil(fn(): bool => $replay->poll()->closedByOtherSide && $this->logged(0, 'warning', 'its proof does not match'));

        self::assertSame(['genuine'], $this->got, 'the replayed batch was not delivered');
    }

    /**
     * A worker of the former version wrote four values per message (formats 1 and 2): what it
     * sends, or hands off during the reload that brings this version in, is still delivered.
     */
    public function testBatchesOfAWorkerOfTheFormerVersionAreDelivered(): void
    {
        $this->victim();
        $old = LinkPeer::client($this->dir . '/worker-1.sock', self::SECRET, 0);
        $old->hello();
        $this->runUntil(static fn(): bool => str_contains($old->poll()->sent, \chr(FrameType::Proof->value)));
        $old->sendFormerBatch(1, [['/user/victim', 'old-1'], ['/user/victim', 'old-2']]);
        $this->runUntil(fn(): bool => \count($this->got) === 2);

        self::assertSame(['old-1', 'old-2'], $this->got);
    }

    public function testAProcessWithoutTheSecretIsClosedAndDeliversNothing(): void
    {
        $this->victim();
        $impostor = LinkPeer::client($this->dir . '/worker-1.sock', 'wrong-secret-wrong-secret-wrong!', 0);
        $impostor->hello();
        $this->runUntil(static fn(): bool => str_contains($impostor->poll()->sent, \chr(FrameType::Proof->value)));
        $impostor->sendMessage(1, '/user/victim', 'intruder');
        $this->runUntil(fn(): bool => $impostor->poll()->closedByOtherSide);
        $this->runFor(0.05);

        self::assertSame([], $this->got);
        self::assertTrue($this->logged(0, 'warning', 'does not know the pool secret'));
    }

    public function testAWorkerNumberTheMasterDidNotStartIsRefused(): void
    {
        $this->victim();
        foreach ([99, 1, -1] as $id) { // beyond the pool of 2, this worker's own number, negative
            $claim = LinkPeer::client($this->dir . '/worker-1.sock', self::SECRET, $id);
            $claim->send(Frames::encode(FrameType::Hello, "nexus1 peer {$id} " . (\function_exists('igbinary_serialize') ? 'igbinary' : 'serialize') . ' ' . str_repeat('ab', 32)));
            $this->runUntil(static fn(): bool => $claim->poll()->closedByOtherSide);
            self::assertSame([], $claim->frameLog, "no Challenge for a claim to be worker {$id}");
        }
        self::assertTrue($this->logged(0, 'warning', 'which is no worker the master started for this pool of 2'));
    }

    public function testBeforeItHasProvedItselfAProcessMaySendOnlyAHandshakeSizedFrame(): void
    {
        $this->victim();
        $big = LinkPeer::client($this->dir . '/worker-1.sock', self::SECRET, 0);
        $big->send(pack('NC', 64 * 1024 * 1024, FrameType::Hello->value) . str_repeat('a', 65_536));
        $this->runUntil(static fn(): bool => $big->poll()->closedByOtherSide);

        self::assertTrue($this->logged(0, 'warning', 'exceeds the limit of 512 bytes'));
    }

    public function testAProcessThatNeverFinishesTheHandshakeIsClosed(): void
    {
        $this->victim();
        $silent = LinkPeer::client($this->dir . '/worker-1.sock', self::SECRET, 0);
        $started = microtime(true);
        $this->runUntil(static fn(): bool => $silent->poll()->closedByOtherSide);

        self::assertGreaterThan(4.0, microtime(true) - $started, 'it had its 5 s');
        self::assertTrue($this->logged(0, 'warning', 'did not complete the handshake'));
    }

    public function testAWorkerSendsNothingToAServerThatCannotProveTheSecret(): void
    {
        $w0 = $this->worker(0, undeliveredTimeout: 0.5);
        $impostor = LinkPeer::server($this->dir . '/worker-1.sock', 'wrong-secret-wrong-secret-wrong!', 1);
        $ask = $w0->remoteRef(1, '/user/anyone')->ask('the data', 5.0);
        $this->runUntil(static fn(): bool => $impostor->poll()->closedByOtherSide && $ask->isSettled());

        self::assertSame([], $impostor->batches, 'no batch went to it');
        self::assertTrue($this->logged(0, 'warning', 'does not know the pool secret'));
        self::assertSame(1, $this->systems[0]->deadLetters->countFor(DeadLetterReason::WorkerUnavailable));
    }

    /**
     * Worker 1 of a pool of 2, with an actor that records what it gets at /user/victim.
     */
    private function victim(): void
    {
        $this->worker(1);
        $this->systems[0]->spawn(Behavior::receive(function (mixed $message): void {
            $this->got[] = $message;
        }), 'victim');
    }
}
