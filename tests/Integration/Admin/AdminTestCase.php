<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Admin;

use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Admin\ActorSystemView;
use Nexus\Admin\AdminAddress;
use Nexus\Admin\AdminServer;
use Nexus\Admin\HealthChecks;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Io\Connector;
use Nexus\Log\MemoryLogger;
use Nexus\Metrics\HttpServerMetrics;
use Nexus\Metrics\Registry;
use Nexus\Runtime\Loop;
use Nexus\Tests\Integration\Http\Server\ReceivedResponse;
use Nexus\Tests\Integration\Http\Server\ResponseReader;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * A served actor system (an application on one port, with the HTTP metrics middleware) and its
 * admin listener on another, both on one loop, with raw clients over real sockets.
 */
abstract class AdminTestCase extends TestCase
{
    use RunsTheLoop;

    protected Loop $loop;
    protected ActorSystem $system;
    protected Registry $registry;
    protected ActorSystemView $view;
    protected AdminServer $admin;
    protected HttpServer $app;
    protected string $adminAddress;
    /** @var list<ResponseReader> */
    private array $clients = [];
    private int $watchdog;
    private ?\Throwable $watchdogFired = null;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->system = new ActorSystem('admin-test', new MemoryLogger(), $this->loop);
        $this->registry = new Registry();
        $this->view = new ActorSystemView($this->system, $this->registry, fn(): int => $this->app->requestsServed());
        $application = new Application($this->system, logger: $this->system->logger);
        $application->middleware(new HttpServerMetrics($this->registry));
        $system = $this->system;
        $application->post('/counters/{name}', static function (string $name) use ($system): array {
            $system->spawn(Behavior::withState(0, static fn(int $count): int => $count + 1), $name);

            return ['spawned' => $name];
        });
        $application->get('/hello', static fn(): string => 'hello');
        $this->app = new HttpServer($this->loop, $application->handler(), logger: $this->system->logger);
        $this->app->listen('tcp://127.0.0.1:0');
        $this->admin = new AdminServer($this->loop, $this->registry->snapshot(...), $this->view, $this->checks(), 'admin-test', $this->system->logger, feedInterval: 0.1);
        $this->adminAddress = $this->admin->listen(AdminAddress::parse('127.0.0.1:0') ?? throw new \LogicException());
        $this->watchdog = $this->loop->delay(20.0, function (): void {
            $this->watchdogFired = new \RuntimeException('Watchdog: the test did not finish within 20 s.');
        });
        $this->loop->unreference($this->watchdog);
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->connection->close();
        }
        $stopped = $this->admin->stop(0.5);
        $this->runUntil(static fn(): bool => $stopped->isSettled());
        $appStopped = $this->app->stop(0.5);
        $this->runUntil(static fn(): bool => $appStopped->isSettled());
        $this->system->shutdown();
        $this->system->run();
        $this->loop->cancel($this->watchdog);
    }

    protected function checks(): HealthChecks
    {
        return new HealthChecks($this->loop);
    }

    protected function checkLoop(): void
    {
        if ($this->watchdogFired !== null) {
            throw $this->watchdogFired;
        }
    }

    protected function client(string $address): ResponseReader
    {
        $connection = Connector::connect($this->loop, $address)->await(5.0);
        $client = new ResponseReader($connection);
        $this->clients[] = $client;

        return $client;
    }

    protected function request(string $address, string $method, string $target): ReceivedResponse
    {
        $client = $this->client($address);
        $client->send("{$method} {$target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", $method === 'HEAD');
        $this->runUntil(static fn(): bool => $client->responses !== [] || $client->closed);
        self::assertNotSame([], $client->responses, "no response to {$method} {$target}; raw: " . substr($client->raw, 0, 300));

        return $client->responses[0];
    }

    protected function admin(string $target): ReceivedResponse
    {
        return $this->request($this->adminAddress, 'GET', $target);
    }

    /**
     * The decoded JSON body, which must be an object.
     *
     * @return array<mixed>
     */
    protected static function json(string $body): array
    {
        $decoded = json_decode($body, true);
        self::assertIsArray($decoded, "not a JSON object: {$body}");

        return $decoded;
    }

    /**
     * The value under $keys in nested arrays, failing the test when a level is missing.
     */
    protected static function at(mixed $value, string|int ...$keys): mixed
    {
        foreach ($keys as $key) {
            self::assertIsArray($value);
            self::assertArrayHasKey($key, $value);
            $value = $value[$key];
        }

        return $value;
    }

    /**
     * @return array<mixed>
     */
    protected static function list(mixed $value, string|int ...$keys): array
    {
        $value = self::at($value, ...$keys);
        self::assertIsArray($value);

        return $value;
    }

    /**
     * Polls /metrics until it contains every one of $lines (each a whole line), then returns it.
     *
     * @param list<string> $lines
     */
    protected function waitForMetrics(array $lines): string
    {
        $body = '';
        $deadline = microtime(true) + 10.0;
        while (microtime(true) < $deadline) {
            $body = $this->admin('/metrics')->body;
            $missing = array_filter($lines, static fn(string $line): bool => !str_contains("\n" . $body, "\n{$line}\n"));
            if ($missing === []) {
                return $body;
            }
            $this->runFor(0.02);
        }
        self::fail("/metrics never showed:\n" . implode("\n", $missing ?? $lines) . "\n--- last body ---\n{$body}");
    }
}
