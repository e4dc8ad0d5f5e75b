<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\NodeWs;
use Nexus\Tests\Support\ServedNexus;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\TestCase;

/**
 * The demo app's WebSocket routes as `nexus serve --workers=2` serves them, driven by our raw
 * client and by the npm ws package: GET /ws/echo echoes text as text and binary as binary,
 * GET /ws/chat/{room} sends each text message to everybody in the room (the sender included)
 * whichever worker they are on, and GET /chat serves the page.
 */
final class DemoWebSocketTest extends TestCase
{
    private static ?ServedNexus $served = null;
    private Loop $loop;
    /** @var list<TestClient> */
    private array $clients = [];

    public static function setUpBeforeClass(): void
    {
        self::$served = ServedNexus::start(['--workers=2', '--no-jit']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$served?->stop();
        self::$served = null;
    }

    protected function setUp(): void
    {
        $this->loop = new Loop();
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
    }

    public function testEchoAnswersTextAsTextAndBinaryAsBinary(): void
    {
        $client = $this->open('/ws/echo');
        $client->sendText('héllo');
        $client->sendBinary("\x00\xFF\x10");
        $client->sendFrame(0x1, 'frag', false);
        $client->sendFrame(0x0, 'mented', true);
        $text = $client->nextDataOrClose();
        $binary = $client->nextDataOrClose();
        $joined = $client->nextDataOrClose();
        self::assertSame([0x1, 'héllo'], [$text?->opcode, $text?->payload]);
        self::assertSame([0x2, "\x00\xFF\x10"], [$binary?->opcode, $binary?->payload]);
        self::assertSame([0x1, 'fragmented'], [$joined?->opcode, $joined?->payload]);
        $client->sendClose(1000);
        self::assertSame(1000, $client->awaitClose()?->closeCode());
    }

    public function testChatSendsEachMessageToEverybodyInTheRoomAndNobodyElse(): void
    {
        $room = [$this->open('/ws/chat/php-test'), $this->open('/ws/chat/php-test'), $this->open('/ws/chat/php-test'), $this->open('/ws/chat/php-test')];
        $elsewhere = $this->open('/ws/chat/other-room');
        // A connection has joined once its own message comes back to it.
        foreach ($room as $i => $client) {
            $client->sendText("joined {$i}");
            while (($frame = $client->nextDataOrClose()) !== null && $frame->payload !== "joined {$i}") {
            }
        }
        $room[2]->sendText('hello room');
        foreach ($room as $i => $client) {
            while (($frame = $client->nextDataOrClose()) !== null && str_starts_with($frame->payload, 'joined ')) {
            }
            self::assertSame('hello room', $frame?->payload, "member {$i}");
        }
        $elsewhere->sendText('only here');
        self::assertSame('only here', $elsewhere->nextDataOrClose()?->payload, 'the other room got nothing of the first');

        $room[0]->sendBinary('bytes');
        self::assertSame(1003, $room[0]->awaitClose()?->closeCode(), 'the chat takes text only');
    }

    public function testTheChatPageIsServed(): void
    {
        \assert(self::$served !== null);
        $page = file_get_contents(self::$served->url . '/chat?room=lobby');
        self::assertIsString($page);
        self::assertStringContainsString('<title>Nexus chat</title>', $page);
        self::assertStringContainsString('/ws/chat/', $page);
    }

    public function testTheNpmWsClientAgainstTheEchoRoute(): void
    {
        \assert(self::$served !== null);
        [$exit, $output, $checks] = NodeWs::client('ws-echo-client.mjs', ['ws://' . substr(self::$served->url, 7) . '/ws/echo']);

        foreach ($checks as $name => $check) {
            self::assertTrue($check['ok'], "ws check \"{$name}\" failed: " . json_encode($check['detail']));
        }
        self::assertSame(0, $exit, "the ws client failed:\n{$output}");
        self::assertCount(15, $checks, "every check ran:\n{$output}");
    }

    public function testTheNpmWsClientInAChatRoomAcrossWorkers(): void
    {
        \assert(self::$served !== null);
        [$exit, $output, $checks] = NodeWs::client('ws-chat-client.mjs', ['ws://' . substr(self::$served->url, 7) . '/ws/chat/node-test', '8']);

        foreach ($checks as $name => $check) {
            self::assertTrue($check['ok'], "ws check \"{$name}\" failed: " . json_encode($check['detail']));
        }
        self::assertSame(0, $exit, "the ws client failed:\n{$output}");
        self::assertArrayHasKey('every connection got every message', $checks, $output);
        self::assertArrayHasKey('close handshakes', $checks, $output);
    }

    private function open(string $path): TestClient
    {
        \assert(self::$served !== null);
        $client = TestClient::connect($this->loop, self::$served->address(), [], $path);
        self::assertSame(101, $client->status, $client->body);
        $this->clients[] = $client;

        return $client;
    }
}
