<?php

declare(strict_types=1);

/*
 * The application `make chaos` serves with two workers: the demo app (its counters) plus the
 * operations the fault campaign checks afterwards and the loads it needs:
 *
 *     POST /pg/{id}       inserts {id} into chaos_ops (PostgreSQL; 200 once committed)
 *     POST /redis/{id}    adds {id} to the set chaos:ops (Redis with appendfsync always)
 *     POST /flood/{n}     tells n messages of 4 KiB to the named actor "sink", which is slow
 *                         and bounded: one worker floods whichever worker hosts it
 *     GET  /big           1 MiB, for clients that never read
 *
 * NEXUS_CHAOS_PG (a libpq DSN) and NEXUS_CHAOS_REDIS (redis://host:port) say where the servers
 * are; a route whose server is not configured answers 503.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Props;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Http\Response;
use Nexus\Persistence\StoreLocation;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgPool;
use Nexus\Redis\RedisConfig;
use Nexus\Redis\RedisPool;
use Nexus\Worker\Workers;

return static function (Application $app, ActorSystem $system, Workers $workers, StoreLocation $store): void {
    DemoApp::configure($app, $system, $workers, $store->open($system)); // durable counters (--data-dir)

    $pgDsn = getenv('NEXUS_CHAOS_PG');
    $pg = \is_string($pgDsn) && $pgDsn !== '' ? new PgPool($system->loop, PgConfig::fromDsn($pgDsn), 4, 5.0) : null;
    $redisUri = getenv('NEXUS_CHAOS_REDIS');
    $redis = \is_string($redisUri) && $redisUri !== '' ? new RedisPool($system->loop, RedisConfig::fromUri($redisUri, 2.0, 5.0), 4, 5.0) : null;
    $unavailable = static fn(string $what): Response => new Response(503, ['Content-Type' => 'text/plain'], "{$what} is not configured\n");

    $app->post('/pg/{id:[A-Za-z0-9_-]+}', static function (string $id) use ($pg, $unavailable): array|Response {
        if ($pg === null) {
            return $unavailable('PostgreSQL');
        }
        $pg->query('INSERT INTO chaos_ops (id) VALUES ($1)', [$id]);

        return ['id' => $id];
    });
    $app->post('/redis/{id:[A-Za-z0-9_-]+}', static function (string $id) use ($redis, $unavailable): array|Response {
        if ($redis === null) {
            return $unavailable('Redis');
        }
        $redis->command('SADD', 'chaos:ops', $id);

        return ['id' => $id];
    });

    // A slow actor with a bounded mailbox: about 50 µs of work per message, at most 1,000 queued
    // (senders in a fiber wait for room), so a flood from the other worker meets backpressure.
    $sink = $workers->named('sink', Props::fromBehavior(Behavior::withState(0, static function (int $seen, mixed $message): int {
        $until = hrtime(true) + 50_000;
        while (hrtime(true) < $until) {
            // busy: a handler that costs CPU
        }

        return $seen + 1;
    }))->withMailbox(1_000, OverflowPolicy::Backpressure));
    $payload = str_repeat('x', 4096);
    $app->post('/flood/{n:\d+}', static function (int $n) use ($sink, $payload): array {
        $n = min($n, 100_000);
        for ($i = 0; $i < $n; ++$i) {
            // A distinct string each time, so that no codec can send it as a back-reference.
            $sink->tell(substr_replace($payload, pack('N', $i), 0, 4));
        }

        return ['sent' => $n];
    });

    $big = str_repeat('0123456789abcdef', 65_536);
    $app->get('/big', static fn(): Response => new Response(200, ['Content-Type' => 'application/octet-stream'], $big));
};
