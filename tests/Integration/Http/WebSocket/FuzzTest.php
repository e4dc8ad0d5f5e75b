<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * Random and hostile frames (seeded, so a failure can be replayed): the server never crashes,
 * never reports an error to the loop and never wedges. Each connection either stays consistent
 * (its ping after the noise is answered) or is failed with a close frame and closed; random bytes
 * followed by a hang-up always end with the server connection closed; and a clean client is
 * still served at the end.
 */
final class FuzzTest extends WebSocketTestCase
{
    private const ROUNDS = 120;

    public function testRandomFramesNeverCrashOrWedgeTheServer(): void
    {
        $seed = (int) (getenv('NEXUS_FUZZ_SEED') ?: random_int(1, \PHP_INT_MAX));
        mt_srand($seed);
        $opened = 0;
        $closed = 0;
        $closeCodes = [];
        $this->serve(static function (WebSocketConnection $ws) use (&$opened, &$closed, &$closeCodes): void {
            ++$opened;
            $ws->onMessage(static function (string $payload, bool $binary) use ($ws): void {
                $ws->send($payload, $binary);
            });
            $ws->onClose(static function (int $code) use (&$closed, &$closeCodes): void {
                ++$closed;
                $closeCodes[$code] = ($closeCodes[$code] ?? 0) + 1;
            });
        }, new WebSocketOptions(maxFramePayload: 65_536, maxMessageSize: 131_072, closeTimeout: 1.0));

        $outcomes = ['answered' => 0, 'failed' => 0, 'hung up' => 0];
        for ($round = 0; $round < self::ROUNDS; ++$round) {
            $context = "seed {$seed}, round {$round} (replay with NEXUS_FUZZ_SEED={$seed})";
            $deflate = mt_rand(0, 1) === 1;
            $client = $this->open($deflate ? ['Sec-WebSocket-Extensions' => 'permessage-deflate'] : []);
            if (mt_rand(0, 4) === 0) {
                // Pure noise, then hang up: whatever the server made of it, it must let go.
                $client->sendRaw(self::noise(mt_rand(1, 3000)));
                $client->close();
                ++$outcomes['hung up'];
                continue;
            }
            $bytes = '';
            for ($i = mt_rand(1, 6); $i > 0; --$i) {
                $bytes .= self::randomFrame();
            }
            // A split at random points exercises the decoder's partial reads.
            foreach (str_split($bytes, mt_rand(1, 4096)) as $piece) {
                $client->sendRaw($piece);
            }
            $marker = 'marker-' . $round;
            $client->sendFrame(0x9, $marker);
            $outcome = $this->answerOrClose($client, $marker, $context);
            ++$outcomes[$outcome];
            $client->close();
        }

        // Every server connection ends; none is left half-open.
        $this->runUntil(static function () use (&$opened, &$closed): bool {
            return $closed === $opened;
        });
        self::assertSame(self::ROUNDS, $opened);
        \assert($this->server !== null);
        $listener = $this->server->listener;
        $this->runUntil(static fn(): bool => $listener->connectionCount() === 0);
        foreach (array_keys($closeCodes) as $code) {
            self::assertTrue(\in_array($code, [CloseCode::ABNORMAL, CloseCode::NO_STATUS], true) || CloseCode::isValidOnWire($code), "close code {$code}");
        }
        self::assertGreaterThan(0, $outcomes['failed'], 'some rounds were hostile enough to fail');
        self::assertGreaterThan(0, $outcomes['answered'], 'some rounds were survivable');

        // And the server still serves a well-behaved client.
        $client = $this->open();
        $client->sendText('still alive');
        self::assertSame('still alive', $client->nextDataOrClose()?->payload);
    }

    /**
     * @return 'answered'|'failed'
     */
    private function answerOrClose(TestClient $client, string $marker, string $context): string
    {
        while (true) {
            $frame = $client->nextFrame(10.0);
            if ($frame === null) {
                self::fail("The connection ended without a close frame or an answer to the ping ({$context}).");
            }
            if ($frame->opcode === 0xA && $frame->payload === $marker) {
                return 'answered';
            }
            if ($frame->opcode === 0x8) {
                $client->awaitEof(10.0);

                return 'failed';
            }
        }
    }

    private static function randomFrame(): string
    {
        $kind = mt_rand(0, 29);
        $opcodes = [0x1, 0x2, 0x1, 0x2, 0x1, 0x2, 0x0, 0x9, 0xA, 0x8, 0x1, 0x2, 0x1, 0x2, mt_rand(0, 15)];
        $opcode = $opcodes[array_rand($opcodes)];
        $payload = match (mt_rand(0, 6)) {
            0 => '',
            1 => self::noise(mt_rand(1, 200)),
            2, 5 => str_repeat('é', mt_rand(1, 300)),
            3, 6 => substr(str_repeat("a\u{1F600}", 100), 0, mt_rand(1, 400)),
            default => self::noise(mt_rand(1, 70_000)),
        };
        if ($opcode === 0x8 && mt_rand(0, 1) === 1) {
            $payload = pack('n', mt_rand(0, 5000)) . substr($payload, 0, 60);
        }
        $fin = mt_rand(0, 5) !== 0;
        $rsv = $kind === 0 ? mt_rand(1, 7) << 4 : 0;
        $mask = $kind !== 1;

        return TestClient::frame($opcode, $payload, $fin, $rsv, $mask);
    }

    private static function noise(int $length): string
    {
        $bytes = '';
        while (\strlen($bytes) < $length) {
            $bytes .= pack('N', mt_rand());
        }

        return substr($bytes, 0, $length);
    }
}
