<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\HttpClient;
use Nexus\Io\Connection;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Integration\Http\Server\CallbackHandler;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * A loop with a watchdog, an HttpClient on it, and servers started on demand on the same loop
 * (Nexus's own HttpServer, a RawServer); every error that reaches the loop's error handler fails
 * the test, and every client connection must be closed or idle at the end.
 */
abstract class HttpClientTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 20.0;

    protected Loop $loop;
    protected HttpClient $client;
    /** @var list<\Throwable> */
    protected array $loopErrors = [];
    /** @var list<HttpServer> */
    private array $servers = [];
    /** @var list<RawServer> */
    private array $rawServers = [];
    private int $watchdog;

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
        $this->client = $this->client();
    }

    protected function tearDown(): void
    {
        $this->client->close();
        foreach ($this->servers as $server) {
            $stopped = $server->stop(0.0);
            $this->runUntil(static fn(): bool => $stopped->isSettled());
        }
        foreach ($this->rawServers as $server) {
            $server->close();
        }
        $this->loop->cancel($this->watchdog);
        self::assertSame([], array_map(static fn(\Throwable $e): string => $e::class . ': ' . $e->getMessage(), $this->loopErrors), 'no error reached the loop');
    }

    protected function client(ClientOptions $options = new ClientOptions()): HttpClient
    {
        return new HttpClient($this->loop, $options);
    }

    /**
     * Nexus's own HTTP server on this loop; returns its base URL (http://127.0.0.1:port).
     *
     * @param \Closure(Request): Response $handler
     */
    protected function serve(\Closure $handler, ServerOptions $options = new ServerOptions()): string
    {
        $server = new HttpServer($this->loop, new CallbackHandler($handler), $options);
        $server->listen('tcp://127.0.0.1:0');
        $this->servers[] = $server;

        return str_replace('tcp://', 'http://', $server->address());
    }

    /**
     * @param \Closure(Connection, string, int): void $script
     */
    protected function raw(\Closure $script): RawServer
    {
        return $this->rawServers[] = new RawServer($this->loop, $script);
    }

    /**
     * Runs the loop until $future settles, then returns its failure (failing the test if it
     * succeeded).
     *
     * @param Future<mixed> $future
     */
    protected function failureOf(Future $future): \Throwable
    {
        try {
            $future->await(self::WATCHDOG_SECONDS);
        } catch (\Throwable $e) {
            return $e;
        }
        self::fail('The request was expected to fail, but it succeeded.');
    }

    protected function checkLoop(): void
    {
        if ($this->loopErrors !== [] && str_starts_with($this->loopErrors[0]->getMessage(), 'Watchdog')) {
            throw $this->loopErrors[0];
        }
    }
}
