<?php

declare(strict_types=1);

namespace Nexus\Postgres;

/**
 * Turns the text values libpq returns into PHP values, by column type OID.
 *
 * The plan is made once per result: the columns are grouped by the conversion they need, and
 * text columns (the most common case) are not touched at all.
 *
 * @internal
 */
final class PgTypes
{
    public const BOOL = 16;
    public const INT8 = 20;
    public const INT2 = 21;
    public const INT4 = 23;
    public const OID = 26;
    public const JSON = 114;
    public const FLOAT4 = 700;
    public const FLOAT8 = 701;
    public const NUMERIC = 1700;
    public const JSONB = 3802;

    /**
     * @param array<string, int> $oids type OID by column name
     *
     * @return array{list<string>, list<string>, list<string>, list<string>}|null ints, floats,
     *                                                                            bools, json columns; null when every column stays a string
     */
    public static function plan(array $oids): ?array
    {
        $ints = $floats = $bools = $json = [];
        foreach ($oids as $name => $oid) {
            switch ($oid) {
                case self::INT4:
                case self::INT8:
                case self::INT2:
                case self::OID:
                    $ints[] = $name;
                    break;
                case self::FLOAT8:
                case self::FLOAT4:
                    $floats[] = $name;
                    break;
                case self::BOOL:
                    $bools[] = $name;
                    break;
                case self::JSON:
                case self::JSONB:
                    $json[] = $name;
                    break;
            }
        }
        if ($ints === [] && $floats === [] && $bools === [] && $json === []) {
            return null;
        }

        return [$ints, $floats, $bools, $json];
    }

    /**
     * @param list<array<string, string|null>>                                     $rows
     * @param array{list<string>, list<string>, list<string>, list<string>}|null $plan
     *
     * @return list<array<string, mixed>>
     */
    public static function convert(array $rows, ?array $plan): array
    {
        if ($plan === null) {
            return $rows;
        }
        [$ints, $floats, $bools, $json] = $plan;
        foreach ($rows as &$row) {
            foreach ($ints as $name) {
                if (\is_string($value = $row[$name])) {
                    $row[$name] = (int) $value;
                }
            }
            foreach ($floats as $name) {
                if (\is_string($value = $row[$name])) {
                    $row[$name] = self::float($value);
                }
            }
            foreach ($bools as $name) {
                if (\is_string($value = $row[$name])) {
                    $row[$name] = $value === 't';
                }
            }
            foreach ($json as $name) {
                if (\is_string($value = $row[$name])) {
                    $row[$name] = json_decode($value, true, 512, \JSON_THROW_ON_ERROR | \JSON_BIGINT_AS_STRING);
                }
            }
        }
        unset($row);

        /** @var list<array<string, mixed>> */
        return $rows;
    }

    public static function float(string $text): float
    {
        return match ($text) {
            'NaN' => \NAN,
            'Infinity' => \INF,
            '-Infinity' => -\INF,
            default => (float) $text,
        };
    }
}
