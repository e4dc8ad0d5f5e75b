<?php

declare(strict_types=1);

/*
 * The Nexus side of `make bench-db`: php bin/nexus serve bench/db/nexus-app.php --workers=N
 * GET / and GET /bench run the 10 queries of one request on a PgPool of this worker and answer
 * with JSON; while a query waits for PostgreSQL, the worker serves other requests.
 * Settings from the environment: NEXUS_BENCH_DB_HOST, _PORT, _NAME, _USER (where PostgreSQL is)
 * and NEXUS_BENCH_DB_POOL (connections per worker, default 16).
 */

use Nexus\Actor\ActorSystem;
use Nexus\Bench\Db\BenchQueries;
use Nexus\Http\Application;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgPool;

return static function (Application $app, ActorSystem $system): void {
    $setting = static function (string $name, string $default): string {
        $value = getenv($name);

        return is_string($value) && $value !== '' ? $value : $default;
    };
    $dsn = sprintf(
        'host=%s port=%d dbname=%s user=%s',
        $setting('NEXUS_BENCH_DB_HOST', '127.0.0.1'),
        (int) $setting('NEXUS_BENCH_DB_PORT', '5432'),
        $setting('NEXUS_BENCH_DB_NAME', 'bench'),
        $setting('NEXUS_BENCH_DB_USER', 'postgres'),
    );
    $pool = new PgPool($system->loop, PgConfig::fromDsn($dsn), maxSize: max(1, (int) $setting('NEXUS_BENCH_DB_POOL', '16')), waitTimeout: 5.0);
    $query = static function (string $sql, array $params) use ($pool): array {
        /** @var list<array<string, mixed>> $rows */
        $rows = $pool->query($sql, $params)->rows();

        return $rows;
    };
    $handler = static fn(): array => BenchQueries::run($query);
    $app->get('/', $handler);
    $app->get('/bench', $handler);
};
