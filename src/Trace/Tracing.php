<?php

declare(strict_types=1);

namespace Nexus\Trace;

/**
 * The tracer of this process, or null when tracing is off (the default). Set once at start-up
 * (Nexus\Telemetry\Telemetry::install()); instrumented code looks here only when the task it runs
 * already carries a trace context (Scheduler::$trace), so that with tracing off the hot paths
 * read one null property and nothing more.
 */
final class Tracing
{
    public static ?Tracer $tracer = null;

    private function __construct() {}

    /**
     * Bytes of a database statement kept in a span (db.statement); longer ones are cut and end
     * with "...".
     */
    public const MAX_STATEMENT = 1024;

    /**
     * $statement cut to MAX_STATEMENT bytes, without splitting a UTF-8 character.
     */
    public static function statement(string $statement): string
    {
        if (\strlen($statement) <= self::MAX_STATEMENT) {
            return $statement;
        }
        $cut = substr($statement, 0, self::MAX_STATEMENT - 3);
        // Drop a trailing partial UTF-8 sequence.
        $cut = preg_replace('/[\xC0-\xFF][\x80-\xBF]*$/', '', $cut) ?? $cut;

        return $cut . '...';
    }
}
