<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/** Casts path and query strings to a parameter's scalar type; null means "not castable". */
final class ScalarCast
{
    public const TYPES = ['int', 'float', 'bool', 'string', 'mixed'];

    public static function cast(string $type, string $value): int|float|bool|string|null
    {
        return match ($type) {
            'int' => self::toInt($value),
            'float' => is_numeric($value) && trim($value) === $value ? (float) $value : null,
            'bool' => filter_var($value, \FILTER_VALIDATE_BOOL, \FILTER_NULL_ON_FAILURE),
            default => $value,
        };
    }

    /** Optional "-", then digits (leading zeros allowed), within the int range. */
    private static function toInt(string $value): ?int
    {
        $negative = $value !== '' && $value[0] === '-';
        $digits = $negative ? substr($value, 1) : $value;
        if ($digits === '' || !ctype_digit($digits)) {
            return null;
        }
        $digits = ltrim($digits, '0');
        if ($digits === '') {
            return 0;
        }
        $int = filter_var(($negative ? '-' : '') . $digits, \FILTER_VALIDATE_INT);

        return $int === false ? null : $int;
    }
}
