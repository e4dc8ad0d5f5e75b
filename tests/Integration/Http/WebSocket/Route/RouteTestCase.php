<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket\Route;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\TestCase;

/**
 * WebSocket routes of an Application served by a real HttpServer, and raw test clients, on one
 * loop over sockets on 127.0.0.1. Every test runs under a watchdog; an error that reaches the
 * loop's error handler fails it unless the test takes it (takeLoopErrors()).
 */
abstract class RouteTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 20.0;

    protected Loop $loop;
    protected ActorSystem $system;
    protected MemoryLogger $logger;
    protected Application $app;
    protected ?HttpServer $server = null;
    /** @var list<\Throwable> */
    protected array $loopErrors = [];
    private int $watchdog;
    /** @var list<TestClient> */
    private array $clients = [];
    /** @var list<Connection> */
    private array $raw = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->logger = new MemoryLogger();
        $this->system = new ActorSystem('ws-routes', $this->logger, $this->loop);
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            $this->loopErrors[] = $e;
        });
        $this->watchdog = $this->loop->delay(self::WATCHDOG_SECONDS, static function (): never {
            throw new \RuntimeException('Watchdog: the test did not finish within ' . self::WATCHDOG_SECONDS . ' s.');
        });
        $this->loop->unreference($this->watchdog);
        $this->app = new Application($this->system, logger: $this->logger);
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        foreach ($this->raw as $connection) {
            $connection->close();
        }
        if ($this->server !== null) {
            $stopped = $this->server->stop(0.0);
            $this->runUntil(static fn(): bool => $stopped->isSettled());
        }
        $this->loop->cancel($this->watchdog);
        self::assertSame([], array_map(static fn(\Throwable $e): string => $e::class . ': ' . $e->getMessage(), $this->loopErrors), 'no error reached the loop');
    }

    protected function serve(ServerOptions $options = new ServerOptions()): HttpServer
    {
        $this->server = new HttpServer($this->loop, $this->app->handler(), $options, $this->logger);
        $this->server->listen('tcp://127.0.0.1:0');

        return $this->server;
    }

    /**
     * An upgrade request to $path; $headers add to or (null) remove from the usual ones.
     *
     * @param array<string, ?string> $headers
     */
    protected function connect(string $path, array $headers = []): TestClient
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
    protected function open(string $path, array $headers = []): TestClient
    {
        $client = $this->connect($path, $headers);
        self::assertSame(101, $client->status, "handshake on {$path} accepted; body: {$client->body}");

        return $client;
    }

    /**
     * Sends $bytes as they are and returns everything the server sends until it closes.
     */
    protected function exchangeRaw(string $bytes, float $timeout = 10.0): string
    {
        \assert($this->server !== null);
        $connection = Connector::connect($this->loop, $this->server->address(), $timeout)->await($timeout);
        $this->raw[] = $connection;
        $received = '';
        /** @var Deferred<string> $done */
        $done = new Deferred($this->loop);
        $connection->onData(static function (string $data) use (&$received): void {
            $received .= $data;
        });
        $connection->onClose(static function () use ($done, &$received): void {
            $done->tryResolve($received);
        });
        $connection->write($bytes);

        return $done->future()->await($timeout);
    }

    protected function assertClosedWith(TestClient $client, int $code, string $message = ''): void
    {
        $close = $client->awaitClose();
        self::assertNotNull($close, 'the server sent a close frame' . ($message !== '' ? " ({$message})" : ''));
        self::assertSame($code, $close->closeCode(), 'close code' . ($message !== '' ? " ({$message})" : '') . '; reason: ' . $close->closeReason());
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

    /**
     * The request head of an upgrade to $path (for raw exchanges).
     */
    protected static function upgradeRequest(string $path, string $extra = ''): string
    {
        return "GET {$path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            . 'Sec-WebSocket-Key: ' . base64_encode(random_bytes(16)) . "\r\nSec-WebSocket-Version: 13\r\n{$extra}\r\n";
    }
}
