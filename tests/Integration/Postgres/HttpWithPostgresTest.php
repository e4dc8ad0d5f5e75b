<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Io\Connector;
use Nexus\Postgres\PgPool;

/**
 * The point of an async client: while one request waits on the database, the server answers
 * others at once.
 */
final class HttpWithPostgresTest extends PostgresTestCase
{
    public function testFastRequestsAreAnsweredWhileAnotherWaitsOnPgSleep(): void
    {
        $pool = new PgPool($this->loop, $this->config(), maxSize: 2);
        $app = new Application();
        $app->get('/slow', static fn(): array => ['slept' => $pool->query('SELECT pg_sleep(1), true AS slept')->column('slept')[0]]);
        $app->get('/fast', static fn(): string => 'fast');
        $server = new HttpServer($this->loop, $app->handler());
        $server->listen('tcp://127.0.0.1:0');
        $pool->query('SELECT 1');

        try {
            $slowStarted = hrtime(true);
            $slow = $this->request($server, '/slow');
            $this->runFor(0.05);
            self::assertSame('', $slow->response, 'the slow request is still waiting on the database');

            $times = [];
            for ($i = 0; $i < 5; ++$i) {
                $started = hrtime(true);
                $fast = $this->request($server, '/fast');
                $this->runUntil(static fn(): bool => $fast->closed);
                $times[] = (hrtime(true) - $started) / 1e6;
                self::assertStringStartsWith('HTTP/1.1 200', $fast->response);
                self::assertStringEndsWith('fast', $fast->response);
            }
            self::assertFalse($slow->closed, 'the fast requests were served while the slow one waited');
            foreach ($times as $ms) {
                self::assertLessThan(100.0, $ms, 'a fast request took ' . round($ms, 1) . ' ms: ' . implode(', ', array_map(static fn(float $t): string => round($t, 1) . ' ms', $times)));
            }

            $this->runUntil(static fn(): bool => $slow->closed);
            $slowSeconds = (hrtime(true) - $slowStarted) / 1e9;
            self::assertStringStartsWith('HTTP/1.1 200', $slow->response);
            self::assertStringEndsWith('{"slept":true}', $slow->response);
            self::assertGreaterThan(0.95, $slowSeconds);
            self::assertLessThan(2.0, $slowSeconds);
        } finally {
            $stopped = $server->stop(0.0);
            $this->runUntil(static fn(): bool => $stopped->isSettled());
            $pool->close();
        }
    }

    private function request(HttpServer $server, string $path): RawHttpExchange
    {
        return new RawHttpExchange(Connector::connect($this->loop, $server->address())->await(2.0), $path);
    }
}
