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
        // The slow request waits for a lock the test holds, so it ends exactly when the test says.
        $app->get('/slow', static fn(): array => ['slept' => $pool->query('SELECT pg_advisory_xact_lock(4242), true AS slept')->column('slept')[0]]);
        $app->get('/fast', static fn(): string => 'fast');
        $server = new HttpServer($this->loop, $app->handler());
        $server->listen('tcp://127.0.0.1:0');
        $pool->query('SELECT 1');

        $lock = $this->server->adminLink();
        try {
            self::assertNotFalse(pg_query($lock, 'SELECT pg_advisory_lock(4242)'));
            $slow = $this->request($server, '/slow');
            $this->pollUntil(fn(): bool => $this->admin("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock(4242)%'") !== []);
            self::assertSame('', $slow->response, 'the slow request is waiting on the database');

            for ($i = 0; $i < 5; ++$i) {
                $fast = $this->request($server, '/fast');
                $this->runUntil(static fn(): bool => $fast->closed);
                self::assertStringStartsWith('HTTP/1.1 200', $fast->response);
                self::assertStringEndsWith('fast', $fast->response);
            }
            self::assertFalse($slow->closed, 'the fast requests were served while the slow one waited');

            self::assertNotFalse(pg_query($lock, 'SELECT pg_advisory_unlock(4242)'));
            $this->runUntil(static fn(): bool => $slow->closed);
            self::assertStringStartsWith('HTTP/1.1 200', $slow->response);
            self::assertStringEndsWith('{"slept":true}', $slow->response);
        } finally {
            pg_close($lock);
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
