<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\Exception\InvalidCloseException;
use Nexus\Http\WebSocket\SendResult;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * The close handshake from both sides, its timeout, codes, and what a closed connection does.
 */
final class CloseHandshakeTest extends WebSocketTestCase
{
    /** @var list<array{int, string}> */
    private array $closes = [];
    private ?WebSocketConnection $ws = null;

    /**
     * @return iterable<string, array{int}>
     */
    public static function validCodes(): iterable
    {
        foreach ([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] as $code) {
            yield (string) $code => [$code];
        }
    }

    #[DataProvider('validCodes')]
    public function testClientCloseIsEchoedAndTheServerClosesTheTcpConnection(int $code): void
    {
        $this->trackedEcho();
        $client = $this->open();
        $client->sendClose($code, 'see you');

        $this->assertClosedWith($client, $code);
        self::assertSame([[$code, 'see you']], $this->closes, 'onClose gets the peer\'s code and reason');
    }

    public function testCloseWithoutCodeIsAnsweredWithAnEmptyCloseAndReportedAs1005(): void
    {
        $this->trackedEcho();
        $client = $this->open();
        $client->sendFrame(0x8, '');

        $close = $client->awaitClose();
        self::assertSame('', $close?->payload);
        self::assertSame([[CloseCode::NO_STATUS, '']], $this->closes);
    }

    public function testServerInitiatedCloseWaitsForTheClientsAnswer(): void
    {
        $this->trackedEcho();
        $client = $this->open();
        $ws = $this->lastServerConnection();
        $ws->close(4001, 'rotating');

        $frame = $client->nextFrame();
        self::assertSame(0x8, $frame?->opcode);
        self::assertSame(4001, $frame->closeCode());
        self::assertSame('rotating', $frame->closeReason());
        self::assertFalse($ws->isOpen());
        self::assertSame([], $this->closes, 'not closed until the client answers');
        self::assertSame(SendResult::Closed, $ws->sendText('too late'), 'no data after the close frame');

        // Messages the client sends meanwhile are not delivered; its close frame completes.
        $client->sendText('in flight');
        $client->sendClose(4001);
        $client->awaitEof();
        self::assertSame([[4001, 'rotating']], $this->closes);
        self::assertNull($client->nextFrame(), 'nothing was echoed after the close frame');
    }

    public function testServerClosesTheSocketWhenTheClientNeverAnswersItsClose(): void
    {
        $this->trackedEcho(new WebSocketOptions(closeTimeout: 0.2));
        $client = $this->open();
        $ws = $this->lastServerConnection();
        $ws->close(1001, 'going away');

        // The client reads the close frame but neither answers nor closes.
        self::assertSame(1001, $client->nextFrame()?->closeCode());
        $client->awaitEof();
        self::assertSame([[1001, 'going away']], $this->closes);
    }

    public function testServerClosesTheSocketWhenTheClientKeepsItOpenAfterTheHandshake(): void
    {
        $this->trackedEcho(new WebSocketOptions(closeTimeout: 0.2));
        $client = $this->open();
        $client->sendClose(1000);

        // The server answers and ends its side; this client never closes its own.
        $client->awaitEof();
        self::assertSame([[1000, '']], $this->closes);
    }

    public function testTcpConnectionDroppedWithoutCloseFrameIsReportedAs1006(): void
    {
        $this->trackedEcho();
        $client = $this->open();
        $this->lastServerConnection();
        $client->close();

        $this->runUntil(fn(): bool => $this->closes !== []);
        self::assertSame(CloseCode::ABNORMAL, $this->closes[0][0]);
        self::assertSame(SendResult::Closed, $this->ws?->sendText('nobody there'));
    }

    public function testHalfCloseWithoutCloseFrameIsReportedAs1006AndTheServerEndsToo(): void
    {
        $this->trackedEcho();
        $client = $this->open();
        $this->lastServerConnection();
        $client->connection->end();

        $client->awaitEof();
        self::assertSame(CloseCode::ABNORMAL, $this->closes[0][0] ?? null);
    }

    public function testCloseRejectsCodesThatMayNotBeSent(): void
    {
        $this->trackedEcho();
        $this->open();
        $ws = $this->lastServerConnection();
        foreach ([999, 1004, 1005, 1006, 1015, 2000, 5000] as $code) {
            try {
                $ws->close($code);
                self::fail("close({$code}) was accepted");
            } catch (InvalidCloseException $e) {
                self::assertStringContainsString((string) $code, $e->getMessage());
            }
        }
        $this->expectException(InvalidCloseException::class);
        $ws->close(1000, str_repeat('r', 124));
    }

    public function testExceptionInTheMessageHandlerClosesWith1011AndIsReported(): void
    {
        $this->serve(static function (WebSocketConnection $ws): void {
            $ws->onMessage(static function (string $payload): void {
                throw new \DomainException("cannot handle {$payload}");
            });
        });
        $client = $this->open();
        $client->sendText('this');
        $client->sendText('not delivered');

        $frame = $client->nextFrame();
        self::assertSame(CloseCode::INTERNAL_ERROR, $frame?->closeCode());
        $client->sendClose(CloseCode::INTERNAL_ERROR);
        $client->awaitEof();
        $errors = $this->takeLoopErrors();
        self::assertCount(1, $errors);
        self::assertSame('cannot handle this', $errors[0]->getMessage());
    }

    public function testOnCloseRegisteredAfterTheCloseRunsAtOnce(): void
    {
        $this->trackedEcho();
        $client = $this->open();
        $client->sendClose(1000);
        $client->awaitEof();

        $late = null;
        $this->ws?->onClose(static function (int $code) use (&$late): void {
            $late = $code;
        });
        self::assertSame(1000, $late);
        self::assertSame(1000, $this->ws?->closeCode());
    }

    private function trackedEcho(WebSocketOptions $options = new WebSocketOptions()): void
    {
        $this->serve(function (WebSocketConnection $ws): void {
            $this->ws = $ws;
            $ws->onMessage(static function (string $payload, bool $binary) use ($ws): void {
                $ws->send($payload, $binary);
            });
            $ws->onClose(function (int $code, string $reason): void {
                $this->closes[] = [$code, $reason];
            });
        }, $options);
    }
}
