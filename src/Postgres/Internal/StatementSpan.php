<?php

declare(strict_types=1);

namespace Nexus\Postgres\Internal;

use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\PgConfig;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Trace\SpanKind;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracer;
use Nexus\Trace\Tracing;

/**
 * The client span of a PostgreSQL statement sent from traced work, named and described as
 * OpenTelemetry's database conventions ask (the stable names, and the earlier ones beside them
 * for backends that still read those): `SELECT orders` (the statement's first keyword and the
 * database), db.system.name / db.system, db.namespace / db.name, db.operation.name /
 * db.operation, db.query.text / db.statement (cut to Tracing::MAX_STATEMENT bytes; parameters
 * are never recorded), server.address, server.port. A failure sets error.type and
 * db.response.status_code (the SQLSTATE), or error.type alone (the exception's class).
 *
 * Bound: an operation longer than 32 letters, or not letters, is left out (the span is then
 * named after the database).
 *
 * @internal used by PgConnection
 */
final class StatementSpan
{
    private function __construct() {}

    /**
     * $future seen through a span that ends when it settles.
     *
     * @param Future<mixed> $future
     *
     * @return Future<mixed>
     */
    public static function around(Future $future, Loop $loop, PgConfig $config, Tracer $tracer, TraceContext $parent, string $sql): Future
    {
        $operation = strtoupper((string) strtok(ltrim($sql, " \t\r\n("), " \t\r\n(;"));
        if ($operation === '' || \strlen($operation) > 32 || !ctype_alpha($operation)) {
            $operation = '';
        }
        $database = $config->database;
        $statement = Tracing::statement($sql);
        $attributes = [
            'db.system.name' => 'postgresql',
            'db.system' => 'postgresql',
            'db.namespace' => $database,
            'db.name' => $database,
            'db.query.text' => $statement,
            'db.statement' => $statement,
            'server.address' => $config->host,
            'server.port' => $config->port,
        ];
        if ($operation !== '') {
            $attributes['db.operation.name'] = $operation;
            $attributes['db.operation'] = $operation;
        }
        $span = $tracer->startSpan($operation === '' ? ($database === '' ? 'postgresql' : $database) : "{$operation} {$database}", SpanKind::Client, $parent, $attributes);
        /** @var Deferred<mixed> $outer */
        $outer = new Deferred($loop);
        $future->onSettle(static function (?\Throwable $error, mixed $value) use ($span, $outer): void {
            if ($error !== null) {
                $code = $error instanceof PgQueryException ? $error->sqlState : '';
                if ($code !== '') {
                    $span->setAttribute('db.response.status_code', $code);
                }
                $span->setAttribute('error.type', $code !== '' ? $code : $error::class);
                $span->fail($error);
                $span->end();
                $outer->reject($error);
            } else {
                $span->end();
                $outer->resolve($value);
            }
        });

        return $outer->future();
    }
}
