<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * Typed reads of a runner's decoded JSON results, for the reports that turn them into tables:
 * a missing or mistyped field reads as empty or zero rather than failing the report.
 */
final class JsonFields
{
    /**
     * The object $name of $parent, keyed by strings; empty when it is not there.
     *
     * @param array<mixed> $parent
     *
     * @return array<string, mixed>
     */
    public static function section(array $parent, string $name): array
    {
        $section = $parent[$name] ?? [];
        $typed = [];
        foreach (\is_array($section) ? $section : [] as $key => $value) {
            $typed[(string) $key] = $value;
        }

        return $typed;
    }

    /**
     * @param array<mixed> $section
     */
    public static function float(array $section, string $key): float
    {
        $value = $section[$key] ?? 0;

        return is_numeric($value) ? (float) $value : 0.0;
    }

    /**
     * @param array<mixed> $section
     */
    public static function int(array $section, string $key): int
    {
        $value = $section[$key] ?? 0;

        return is_numeric($value) ? (int) $value : 0;
    }

    /**
     * @param array<mixed> $section
     */
    public static function string(array $section, string $key): string
    {
        $value = $section[$key] ?? '';

        return \is_scalar($value) ? (string) $value : '';
    }
}
