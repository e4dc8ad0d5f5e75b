<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Tests\Support\WebSocket\TestClient;
use Nexus\Tests\Support\WebSocket\TestServer;
use PHPUnit\Framework\TestCase;

/**
 * A WebSocket server (Io Listener + Handshake + WebSocketConnection, see TestServer) and raw test
 * clients on one loop, over real sockets on 127.0.0.1. Every test runs under a watchdog, and an
 * error that reaches the loop's error handler fails it unless the test takes it with
 * takeLoopErrors().
 */
abstract class WebSocketTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 20.0;

    protected Loop $loop;
    protected ?TestServer $server = null;
    /** @var list<\Throwable> */
    protected array $loopErrors = [];
    private int $watchdog;
    /** @var list<TestClient> */
    private array $clients = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            $this->loopErrors[] = $e;
        });
        $this->watchdog = $this->loop->delay(self::WATCHDOG_SECONDS, static function (): never {
            throw new \RuntimeException('Watchdog: the test did not finish within ' . self::WATCHDOG_SECONDS . ' s.');
        });
        $this->loop->unreference($this->watchdog);
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->server?->close();
        $this->loop->cancel($this->watchdog);
        self::assertSame([], array_map(static fn(\Throwable $e): string => $e::class . ': ' . $e->getMessage(), $this->loopErrors), 'no error reached the loop');
    }

    protected function echoServer(WebSocketOptions $options = new WebSocketOptions()): TestServer
    {
        return $this->server = TestServer::echo($this->loop, $options);
    }

    /**
     * @param \Closure(WebSocketConnection): void $onOpen
     */
    protected function serve(\Closure $onOpen, WebSocketOptions $options = new WebSocketOptions()): TestServer
    {
        return $this->server = TestServer::listen($this->loop, $onOpen, $options);
    }

    /**
     * @param array<string, ?string> $headers
     */
    protected function connect(array $headers = [], string $path = '/'): TestClient
    {
        \assert($this->server !== null);
        $client = TestClient::connect($this->loop, $this->server->address(), $headers, $path);
        $this->clients[] = $client;

        return $client;
    }

    /**
     * Connects and fails unless the server answered 101.
     *
     * @param array<string, ?string> $headers
     */
    protected function open(array $headers = []): TestClient
    {
        $client = $this->connect($headers);
        self::assertSame(101, $client->status, 'handshake accepted; body: ' . $client->body);

        return $client;
    }

    /**
     * The server side of the last connection opened.
     */
    protected function lastServerConnection(): WebSocketConnection
    {
        $server = $this->server;
        \assert($server !== null);
        $this->runUntil(static fn(): bool => $server->connections !== []);
        $last = end($server->connections);
        \assert($last instanceof WebSocketConnection);

        return $last;
    }

    /**
     * Reads until the server's close frame and its end of the TCP connection, and checks the code.
     */
    protected function assertClosedWith(TestClient $client, int $code, string $message = ''): void
    {
        $close = $client->awaitClose();
        self::assertNotNull($close, 'the server sent a close frame' . ($message !== '' ? " ({$message})" : ''));
        self::assertSame($code, $close->closeCode(), 'close code' . ($message !== '' ? " ({$message})" : '') . '; reason: ' . $close->closeReason());
        self::assertTrue($client->isEof(), 'the server closed the TCP connection after its close frame');
    }

    /**
     * @return list<\Throwable>
     */
    protected function takeLoopErrors(): array
    {
        $errors = $this->loopErrors;
        $this->loopErrors = [];

        return $errors;
    }

    protected function checkLoop(): void
    {
        if ($this->loopErrors !== [] && str_starts_with($this->loopErrors[0]->getMessage(), 'Watchdog')) {
            throw $this->loopErrors[0];
        }
    }
}
