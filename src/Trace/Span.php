<?php

declare(strict_types=1);

namespace Nexus\Trace;

/**
 * A span being recorded: work started by Tracer::startSpan() and finished by end(). Its context()
 * is what the work done under it carries as parent (see Tracing::$context). Methods after end()
 * do nothing.
 */
interface Span
{
    public function context(): TraceContext;

    /**
     * @param non-empty-string $key
     */
    public function setAttribute(string $key, string|int|float|bool $value): void;

    /**
     * Replaces the span's name (the HTTP span learns its route only after routing).
     *
     * @param non-empty-string $name
     */
    public function rename(string $name): void;

    /**
     * Marks the span failed, with $error recorded as an exception event.
     */
    public function fail(\Throwable $error): void;

    /**
     * Marks the span failed with a description (an HTTP 5xx has no exception).
     */
    public function failWith(string $description): void;

    public function end(): void;
}
