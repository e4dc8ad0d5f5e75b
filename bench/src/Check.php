<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The assertions cases verify their runs with.
 */
final class Check
{
    public static function same(string $case, string $what, int|string|bool|null $expected, mixed $actual): void
    {
        if ($expected !== $actual) {
            throw new BenchmarkFailure(sprintf('%s: expected %s to be %s, got %s.', $case, $what, self::describe($expected), self::describe($actual)));
        }
    }

    public static function that(string $case, bool $condition, string $failure): void
    {
        if (!$condition) {
            throw new BenchmarkFailure("{$case}: {$failure}");
        }
    }

    /**
     * The state a run left behind for verify(); fails when run() never got that far.
     *
     * @template T of object
     *
     * @param T|null $state
     *
     * @return T
     */
    public static function ran(string $case, ?object $state): object
    {
        return $state ?? throw new BenchmarkFailure("{$case}: verify() was called before run() completed.");
    }

    private static function describe(mixed $value): string
    {
        return \is_scalar($value) || $value === null ? var_export($value, true) : get_debug_type($value);
    }
}
