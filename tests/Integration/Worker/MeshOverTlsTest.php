<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Future;
use Nexus\Worker\Exception\NotDeliveredException;
use Nexus\Worker\Slots;
use Nexus\Worker\Transport\FrameType;
use Nexus\Worker\Transport\LinkTls;
use Nexus\Worker\Workers;
use PHPUnit\Framework\TestCase;

/**
 * Links between nodes over mutual TLS: the same frames and handshake inside, each end's
 * certificate verified against the cluster's CA; a node with a certificate from another CA (as
 * either end), a TLS client with no certificate, a
 * plaintext node against a TLS one and a TLS node against a plaintext one all get nothing, their
 * messages become dead letters, the refusal is logged once per peer and no connection is left
 * hanging.
 */
final class MeshOverTlsTest extends TestCase
{
    use RunsWorkers;


    public function testTellsAndAsksCrossNodesOverTls(): void
    {
        $certs = NodeCertificates::get();
        $a = $this->node(5, $this->tls());
        $this->node(9, $this->tls(peerName: 'nexus-node'));
        $received = [];
        $bytes = 0;
        $this->systems[1]->spawn(Behavior::receive(static function (mixed $m, ActorContext $ctx) use (&$received, &$bytes): void {
            if (\is_string($m)) {
                $bytes += \strlen($m);

                return;
            }
            $received[] = $m;
            if ($m === 999) {
                $ctx->reply(['all', $ctx->sender()?->path()]);
            }
        }), 'collector');
        $remote = $a->remoteRef(Slots::id(9, 0), '/user/collector');
        for ($i = 0; $i < 999; ++$i) {
            $remote->tell($i);
        }
        $big = str_repeat('x', 200_000);
        for ($i = 0; $i < 40; ++$i) {
            $remote->tell($big); // 8 MB: frames larger than a TLS record, partial writes
        }
        $reply = $remote->ask(999, 10.0);
        $this->runUntil(static fn(): bool => $reply->isSettled());

        $answer = $reply->await();
        self::assertIsArray($answer);
        self::assertSame('all', $answer[0]);
        self::assertSame(range(0, 999), $received);
        self::assertSame(40 * 200_000, $bytes);

        // and back the other way: node 9 dials node 5, verifying it by the name nexus-node
        $echo = [];
        $this->systems[0]->spawn(Behavior::receive(static function (string $m, ActorContext $ctx): void {
            $ctx->reply("echo {$m}");
        }), 'echo');
        $back = $this->nodes[1]->remoteRef(Slots::id(5, 0), '/user/echo')->ask('hi', 10.0);
        $this->runUntil(static fn(): bool => $back->isSettled());
        self::assertSame('echo hi', $back->await());
        self::assertFileExists($certs->caFile);
        self::assertSame([], array_merge($this->loggers[0]->messages('warning'), $this->loggers[1]->messages('warning')));
    }

    public function testANodeWhoseCertificateIsNotSignedByTheClusterCaIsRefused(): void
    {
        $certs = NodeCertificates::get();
        $this->node(5, new LinkTls($certs->rogueCert, $certs->rogueKey, $certs->caFile));
        $got = &$this->victim(0);
        $dialer = $this->node(9, $this->tls(), undeliveredTimeout: 0.5);
        $ask = $this->knockAndBeRefused($dialer, $got);
        self::assertSame(1, $this->warnings(1, 'TLS link to tcp://127.0.0.1:'), 'refused once, logged once for all the retries');
        self::assertTrue($this->logged(1, 'warning', 'certificate verify failed'));
        $this->runUntil(fn(): bool => $this->openNodeConnections(0) === 0);
        $this->expectException(NotDeliveredException::class);
        $ask->await();
    }

    public function testADiallerWhoseCertificateAnotherCaSignedIsRefusedByTheListeningNode(): void
    {
        $certs = NodeCertificates::get();
        $this->node(5, $this->tls());
        $got = &$this->victim(0);
        // It trusts the cluster's CA and knows the secret: only its own certificate is wrong.
        $dialer = $this->node(9, new LinkTls($certs->rogueCert, $certs->rogueKey, $certs->caFile), undeliveredTimeout: 0.5);
        $ask = $this->knockAndBeRefused($dialer, $got);
        self::assertSame(1, $this->warnings(0, 'TLS link from tcp://127.0.0.1 refused'), "refused once, logged once for all the retries:\n" . implode("\n", $this->loggers[0]->messages('warning')));
        self::assertTrue($this->logged(0, 'warning', 'certificate verify failed'));
        self::assertLessThanOrEqual(1, \count($this->loggers[1]->messages('warning')), "the dialler logs it once at most:\n" . implode("\n", $this->loggers[1]->messages('warning')));
        $this->runUntil(fn(): bool => $this->openNodeConnections(0) === 0);
        $this->expectException(NotDeliveredException::class);
        $ask->await();
    }

    public function testATlsClientWithoutACertificateIsRefusedByTheListeningNode(): void
    {
        $certs = NodeCertificates::get();
        $this->node(5, $this->tls());
        $got = &$this->victim(0);
        $address = $this->addresses[Slots::id(5, 0)];
        foreach ([1, 2] as $attempt) {
            // A TLS client that verifies the node (it has the CA) but has no certificate to show.
            $closed = false;
            $received = '';
            Connector::connect($this->loop, $address, 5.0)->onSettle(static function (?\Throwable $error, mixed $connection) use ($certs, &$closed, &$received): void {
                self::assertNull($error);
                self::assertInstanceOf(Connection::class, $connection);
                $connection->onClose(static function () use (&$closed): void {
                    $closed = true;
                });
                $connection->startTls(['cafile' => $certs->caFile, 'verify_peer' => true, 'peer_name' => '127.0.0.1'], false, 5.0)
                    ->onSettle(static function (?\Throwable $error) use ($connection, &$received): void {
                        if ($error === null) { // TLS 1.3: the client's side completes before the server has checked it
                            $connection->onData(static function (string $data) use (&$received): void {
                                $received .= $data;
                            });
                            $connection->write(str_repeat("\0", 16));
                        }
                    });
            });
            $this->runUntil(static function () use (&$closed): bool {
                return $closed;
            });
            self::assertSame('', $received, "attempt {$attempt}: not a byte of the link protocol back");
        }

        self::assertSame([], $got);
        self::assertSame(1, $this->warnings(0, 'TLS link from tcp://127.0.0.1 refused'), 'logged once for the peer, not once per attempt');
        self::assertTrue($this->logged(0, 'warning', 'peer certificate'), implode("\n", $this->loggers[0]->messages('warning')));
        $this->runUntil(fn(): bool => $this->openNodeConnections(0) === 0);
    }

    public function testAPlaintextNodeAgainstATlsNodeIsRefusedAndNothingHangs(): void
    {
        $this->node(5, $this->tls());
        $got = &$this->victim(0);
        $plain = $this->node(9, null, undeliveredTimeout: 0.5);
        $dead = &$this->deadLetters(1);
        $plain->remoteRef(Slots::id(5, 0), '/user/victim')->tell('plain');
        $plain->remoteRef(Slots::id(5, 0), '/user/victim')->tell('text');
        $this->runUntil(static function () use (&$dead): bool {
            return \count($dead) >= 2;
        });

        self::assertSame([], $got);
        self::assertSame(1, $this->warnings(0, 'TLS link from tcp://127.0.0.1 refused'), 'logged once for the peer, not once per retry');
        $this->runUntil(fn(): bool => $this->openNodeConnections(0) === 0);

        // a raw plaintext client that sends a Hello is closed at once, with not a byte back
        $raw = LinkPeer::client($this->addresses[Slots::id(5, 0)], self::SECRET, Slots::id(9, 0));
        $raw->hello();
        $this->runUntil(static fn(): bool => $raw->poll()->closedByOtherSide);
        self::assertStringNotContainsString(\chr(FrameType::Challenge->value), $raw->received);
        $this->runUntil(fn(): bool => $this->openNodeConnections(0) === 0);
    }

    public function testATlsNodeAgainstAPlaintextNodeIsRefused(): void
    {
        $this->node(5, null);
        $got = &$this->victim(0);
        $secure = $this->node(9, $this->tls(), undeliveredTimeout: 0.5);
        $dead = &$this->deadLetters(1);
        $ask = $secure->remoteRef(Slots::id(5, 0), '/user/victim')->ask('over tls', 5.0);
        $this->runUntil(static function () use (&$dead, $ask): bool {
            return \count($dead) >= 1 && $ask->isSettled();
        });

        self::assertSame([], $got);
        self::assertSame(DeadLetterReason::WorkerUnavailable, $dead[0]->reason);
        self::assertSame(1, $this->warnings(1, 'TLS link to tcp://127.0.0.1:'));
        $this->runUntil(fn(): bool => $this->openNodeConnections(0) === 0);
    }

    private function tls(?string $peerName = null): LinkTls
    {
        $certs = NodeCertificates::get();

        return new LinkTls($certs->nodeCert, $certs->nodeKey, $certs->caFile, $peerName);
    }

    /**
     * @return list<mixed> what the actor /user/victim of system $system receives (by reference)
     */
    private function &victim(int $system): array
    {
        $got = [];
        $this->systems[$system]->spawn(Behavior::receive(static function (mixed $message) use (&$got): void {
            $got[] = $message;
        }), 'victim');

        return $got;
    }

    /**
     * @return list<DeadLetter> the dead letters of system $system (by reference)
     */
    private function &deadLetters(int $system): array
    {
        $dead = [];
        $this->systems[$system]->eventStream->subscribe($this->systems[$system]->spawn(Behavior::receive(static function (DeadLetter $letter) use (&$dead): void {
            $dead[] = $letter;
        })), DeadLetter::class);

        return $dead;
    }

    /**
     * Asks and tells node 5's victim from $dialer, whose link node 5 refuses: both come back to
     * the dialler as WorkerUnavailable dead letters and the victim gets nothing.
     *
     * @param list<mixed> $got what the victim received
     *
     * @return Future<mixed> the ask, settled (failed)
     */
    private function knockAndBeRefused(Workers $dialer, array &$got): Future
    {
        $dead = &$this->deadLetters(1);
        $ask = $dialer->remoteRef(Slots::id(5, 0), '/user/victim')->ask('let me in', 5.0);
        $dialer->remoteRef(Slots::id(5, 0), '/user/victim')->tell('let me in too');
        $this->runUntil(static function () use (&$dead, $ask): bool {
            return \count($dead) >= 2 && $ask->isSettled();
        });

        self::assertSame([], $got);
        self::assertSame([DeadLetterReason::WorkerUnavailable, DeadLetterReason::WorkerUnavailable], array_map(static fn(DeadLetter $l): DeadLetterReason => $l->reason, $dead));

        return $ask;
    }

    private function warnings(int $system, string $text): int
    {
        return \count(array_filter($this->loggers[$system]->messages('warning'), static fn(string $m): bool => str_contains($m, $text)));
    }

    /**
     * Connections open on the node listener of system $system's worker.
     */
    private function openNodeConnections(int $system): int
    {
        $listeners = (new \ReflectionProperty($this->mesh($this->nodes[$system]), 'remoteListeners'))->getValue($this->mesh($this->nodes[$system]));
        self::assertIsArray($listeners);
        $open = 0;
        foreach ($listeners as $listener) {
            self::assertInstanceOf(\Nexus\Io\Listener::class, $listener);
            $open += $listener->connectionCount();
        }

        return $open;
    }

    /**
     * Worker 0 of node $node with TLS $tls (null: plain TCP) on its links with other nodes.
     */
    private function node(int $node, ?LinkTls $tls, float $undeliveredTimeout = 5.0): Workers
    {
        return $this->nodeWorker($node, 0, self::SECRET, $undeliveredTimeout, $tls);
    }
}
