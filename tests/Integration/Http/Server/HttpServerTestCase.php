<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\ListenOptions;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * A server and raw clients on one loop over real sockets on 127.0.0.1. Every test runs under a
 * watchdog, and any error that reaches the loop's error handler fails it.
 */
abstract class HttpServerTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 10.0;

    protected Loop $loop;
    protected MemoryLogger $logger;
    protected ?HttpServer $server = null;
    /** @var list<\Throwable> */
    protected array $loopErrors = [];
    private int $watchdog;
    /** @var list<Connection> */
    private array $clients = [];

    protected function setUp(): void
    {
        $this->loop = $this->makeLoop();
        $this->logger = new MemoryLogger();
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
        if ($this->server !== null) {
            $stopped = $this->server->stop(0.0);
            $this->runUntil(static fn(): bool => $stopped->isSettled());
        }
        $this->loop->cancel($this->watchdog);
        self::assertSame([], array_map(static fn(\Throwable $e): string => $e::class . ': ' . $e->getMessage(), $this->loopErrors), 'no error reached the loop');
    }

    /**
     * The loop the test runs on (a subclass may want another scheduler budget).
     */
    protected function makeLoop(): Loop
    {
        return new Loop();
    }

    /**
     * @param \Closure(Request): Response $handler
     */
    protected function serve(\Closure $handler, ServerOptions $options = new ServerOptions(), ListenOptions $listen = new ListenOptions()): HttpServer
    {
        $this->server = new HttpServer($this->loop, new CallbackHandler($handler), $options, $this->logger);
        $this->server->listen('tcp://127.0.0.1:0', $listen);

        return $this->server;
    }

    protected function hello(ServerOptions $options = new ServerOptions()): HttpServer
    {
        return $this->serve(static fn(Request $r): Response => Response::text('Hello, ' . $r->path()), $options);
    }

    protected function connect(): ResponseReader
    {
        \assert($this->server !== null);
        $connection = Connector::connect($this->loop, $this->server->address())->await(2.0);
        $this->clients[] = $connection;

        return new ResponseReader($connection);
    }

    protected function waitResponses(ResponseReader $client, int $count): void
    {
        $this->runUntil(static fn(): bool => \count($client->responses) >= $count || $client->closed);
        self::assertGreaterThanOrEqual($count, \count($client->responses), 'responses received before close; raw: ' . substr($client->raw, 0, 500));
    }

    protected function waitClosed(ResponseReader $client): void
    {
        $this->runUntil(static fn(): bool => $client->closed);
    }

    protected function checkLoop(): void
    {
        if ($this->loopErrors !== [] && str_starts_with($this->loopErrors[0]->getMessage(), 'Watchdog')) {
            throw $this->loopErrors[0];
        }
    }
}
