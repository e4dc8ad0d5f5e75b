<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\ServedNexus;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\TestCase;

/**
 * Serves the application file of docs/websocket.md ("Routes") as written, with
 * `nexus serve --workers=2`, and chats through it: the doc's sample must keep working.
 */
final class DocsRouteSampleTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../../..';

    private ?ServedNexus $served = null;
    private ?string $file = null;
    /** @var list<TestClient> */
    private array $clients = [];

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->served?->stop();
        if ($this->file !== null) {
            @unlink($this->file);
        }
    }

    public function testTheChatApplicationOfTheDocsWorks(): void
    {
        $doc = (string) file_get_contents(self::ROOT . '/docs/websocket.md');
        $section = strstr($doc, '## Routes');
        self::assertIsString($section, 'docs/websocket.md has its "Routes" section');
        if (preg_match('/```php\n(.*?)```/s', $section, $match) !== 1) {
            self::fail('The "Routes" section has no php block.');
        }
        $this->file = sys_get_temp_dir() . '/nexus-ws-doc-chat-' . getmypid() . '.php';
        file_put_contents($this->file, $match[1]);
        $this->served = ServedNexus::start([$this->file, '--workers=2', '--no-jit']);
        $loop = new Loop();

        $anonymous = TestClient::connect($loop, $this->served->address(), [], '/ws/rooms/lobby');
        self::assertSame(403, $anonymous->status, 'the factory refuses a client without a name');
        self::assertStringContainsString('Say who you are', $anonymous->body);
        $foreign = TestClient::connect($loop, $this->served->address(), ['Origin' => 'https://elsewhere.example'], '/ws/rooms/lobby?name=eve');
        self::assertSame(403, $foreign->status, 'an origin not on the list');

        $ada = $this->join($loop, 'ada');
        self::assertSame('ada joined', $ada->nextDataOrClose()?->payload);
        $bob = $this->join($loop, 'bob');
        $first = $bob->nextDataOrClose()?->payload;
        if ($first === 'ada joined') {
            // Ada's arrival was still on its way to the room's subscribers on bob's worker when
            // bob joined there: he may hear it first.
            $first = $bob->nextDataOrClose()?->payload;
        }
        self::assertSame('bob joined', $first);
        self::assertSame('bob joined', $ada->nextDataOrClose()?->payload);

        $ada->sendText('hello bob');
        self::assertSame('ada: hello bob', $bob->nextDataOrClose()?->payload);
        self::assertSame('ada: hello bob', $ada->nextDataOrClose()?->payload);

        $bob->sendClose();
        $bob->awaitClose();
        self::assertSame('bob left', $ada->nextDataOrClose()?->payload);
    }

    private function join(Loop $loop, string $name): TestClient
    {
        \assert($this->served !== null);
        $client = TestClient::connect($loop, $this->served->address(), ['Origin' => 'http://localhost:8080'], "/ws/rooms/lobby?name={$name}");
        self::assertSame(101, $client->status, $client->body);
        $this->clients[] = $client;

        return $client;
    }
}
