<?php

declare(strict_types=1);

/*
 * The php-fpm side of `make bench-db`: the 10 queries of one request with blocking PDO, as JSON.
 * Settings come from php-fpm's env[] lines (see bench/db/run.php): NEXUS_BENCH_DB_HOST, _PORT,
 * _NAME, _USER. The connection is persistent, so a child reconnects only when it restarts.
 */

use Nexus\Bench\Db\BenchQueries;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$setting = static function (string $name, string $default): string {
    $value = getenv($name);

    return is_string($value) && $value !== '' ? $value : $default;
};

try {
    $pdo = BenchQueries::pdo(
        $setting('NEXUS_BENCH_DB_HOST', '127.0.0.1'),
        (int) $setting('NEXUS_BENCH_DB_PORT', '5432'),
        $setting('NEXUS_BENCH_DB_NAME', 'bench'),
        $setting('NEXUS_BENCH_DB_USER', 'postgres'),
        true,
    );
    $body = json_encode(BenchQueries::run(BenchQueries::pdoRunner($pdo)), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
    header('Content-Type: application/json');
} catch (Throwable $e) {
    http_response_code(500);
    header('Content-Type: text/plain');
    $body = get_class($e) . ': ' . $e->getMessage() . "\n";
}
header('Content-Length: ' . strlen($body));
echo $body;
