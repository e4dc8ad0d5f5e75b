<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\ServedNexus;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\TestCase;

/**
 * Topics with two workers (`nexus serve --workers=2`, Fixture/rooms-app.php): a message published
 * on either worker reaches every subscriber on both, once each, in the same order for all.
 */
final class TopicsAcrossWorkersTest extends TestCase
{
    private ?ServedNexus $served = null;
    /** @var list<TestClient> */
    private array $clients = [];

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->served?->stop();
    }

    public function testAPublishOnEitherWorkerReachesTheSubscribersOfBoth(): void
    {
        $this->served = ServedNexus::start(['tests/Integration/Http/WebSocket/Fixture/rooms-app.php', '--workers=2', '--no-jit']);
        $loop = new Loop();
        /** @var array<int, list<TestClient>> $byWorker */
        $byWorker = [0 => [], 1 => []];
        // The kernel spreads connections over the two workers' sockets (SO_REUSEPORT): open until
        // each has two, or give up after many.
        for ($attempt = 0; $attempt < 60 && (\count($byWorker[0]) < 2 || \count($byWorker[1]) < 2); ++$attempt) {
            $client = TestClient::connect($loop, $this->served->address(), [], '/ws/lobby');
            self::assertSame(101, $client->status, $client->body);
            $this->clients[] = $client;
            $hello = $client->nextDataOrClose()?->payload;
            self::assertMatchesRegularExpression('/^worker [01]$/', (string) $hello);
            $byWorker[(int) substr((string) $hello, 7)][] = $client;
        }
        self::assertGreaterThanOrEqual(2, \count($byWorker[0]), 'connections landed on worker 0');
        self::assertGreaterThanOrEqual(2, \count($byWorker[1]), 'connections landed on worker 1');

        // Each connection joined the topic on its worker right after its hello.
        $byWorker[0][0]->sendText('from worker 0');
        $byWorker[1][0]->sendText('from worker 1');
        $first = null;
        foreach ($this->clients as $i => $client) {
            $order = [$client->nextDataOrClose()?->payload, $client->nextDataOrClose()?->payload];
            $first ??= $order;
            self::assertSame($first, $order, "connection {$i} saw the topic's messages in the same order as the others");
            sort($order);
            self::assertSame(['from worker 0', 'from worker 1'], $order, "connection {$i} got both, once each");
        }
        $byWorker[1][1]->sendText('last');
        foreach ($this->clients as $i => $client) {
            self::assertSame('last', $client->nextDataOrClose(5.0)?->payload, "connection {$i} got nothing twice");
        }
    }
}
