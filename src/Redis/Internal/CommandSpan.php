<?php

declare(strict_types=1);

namespace Nexus\Redis\Internal;

use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\RedisConfig;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Trace\SpanKind;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracer;

/**
 * The client span of a Redis command (or pipeline) sent from traced work, as OpenTelemetry's
 * database conventions describe it: named `GET 0` (operation and database index),
 * db.system.name / db.system = redis, db.operation.name (the command's name, upper-cased, never
 * its arguments: they hold keys and values), db.namespace (the database index), server.address,
 * server.port; a pipeline is `BATCH GET` when all its commands have one name, else `BATCH`, with
 * db.operation.batch.size. An error reply or a lost connection marks the span failed
 * (error.type: the error's prefix, such as WRONGTYPE, or the exception's class).
 *
 * Bound: a command name longer than 32 bytes or outside [A-Za-z0-9_.|-] is recorded as _OTHER.
 *
 * @internal used by RedisClient
 */
final class CommandSpan
{
    private const NAME_BYTES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.|-';

    private function __construct() {}

    /**
     * $future seen through a span that ends when it settles.
     *
     * @template T
     *
     * @param Future<T>                      $future
     * @param list<list<string|int|float>>|null $pipeline the commands of a pipeline, null for one command
     *
     * @return Future<T>
     */
    public static function around(Future $future, Loop $loop, RedisConfig $config, Tracer $tracer, TraceContext $parent, string $name, ?array $pipeline = null): Future
    {
        $database = (string) $config->database;
        $attributes = [
            'db.system.name' => 'redis',
            'db.system' => 'redis',
            'db.namespace' => $database,
            'server.address' => $config->host,
            'server.port' => $config->port,
        ];
        if ($pipeline === null) {
            $operation = self::operation($name);
        } else {
            $operation = self::operation((string) $pipeline[0][0]);
            foreach ($pipeline as $command) {
                if (self::operation((string) $command[0]) !== $operation) {
                    $operation = '';
                    break;
                }
            }
            $operation = $operation === '' ? 'BATCH' : "BATCH {$operation}";
            $attributes['db.operation.batch.size'] = \count($pipeline);
        }
        $attributes['db.operation.name'] = $operation;
        $attributes['db.operation'] = $operation;
        $span = $tracer->startSpan("{$operation} {$database}", SpanKind::Client, $parent, $attributes);
        /** @var Deferred<T> $outer */
        $outer = new Deferred($loop);
        $future->onSettle(static function (?\Throwable $error, mixed $value) use ($span, $outer): void {
            if ($error !== null) {
                $span->setAttribute('error.type', self::errorType($error));
                $span->fail($error);
                $span->end();
                $outer->reject($error);
            } else {
                /** @var T $value */
                $span->end();
                $outer->resolve($value);
            }
        });

        return $outer->future();
    }

    /**
     * The command's name as a bounded label: upper-cased, or _OTHER.
     */
    public static function operation(string $name): string
    {
        $length = \strlen($name);
        if ($length === 0 || $length > 32 || strspn($name, self::NAME_BYTES) !== $length) {
            return '_OTHER';
        }

        return strtoupper($name);
    }

    private static function errorType(\Throwable $error): string
    {
        if ($error instanceof RedisErrorException && $error->prefix !== '' && \strlen($error->prefix) <= 32 && ctype_upper($error->prefix)) {
            return $error->prefix;
        }

        return $error::class;
    }
}
