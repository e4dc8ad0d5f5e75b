<?php

declare(strict_types=1);

namespace Nexus\Postgres\Internal;

use Nexus\Postgres\Exception\PgParameterException;

/**
 * Turns query parameters into the text PostgreSQL receives, when the statement is submitted, so
 * that a bad parameter fails its own statement at once and never reaches the connection's queue.
 *
 * strings and ints pass as they are, null is NULL; bool as t/f; float in full precision (NaN,
 * Infinity, -Infinity); arrays and JsonSerializable as JSON; DateTimeInterface as an ISO timestamp
 * with offset; BackedEnum by value; Stringable as its string. A NUL byte is refused in any text:
 * PostgreSQL text cannot hold one and libpq would cut the value short at it.
 *
 * @internal
 */
final class ParameterEncoder
{
    private function __construct() {}

    /**
     * @param array<mixed> $params
     * @param int          $size   grows by the bytes of the text parameters
     *
     * @return array<mixed> the parameters as string, int or null, under the same keys
     *
     * @throws PgParameterException
     */
    public static function encode(array $params, int &$size): array
    {
        $position = 0;
        foreach ($params as $key => $value) {
            ++$position;
            if (\is_string($value)) {
                if (str_contains($value, "\0")) {
                    throw self::nul($position, 'string');
                }
                $size += \strlen($value);
            } elseif ($value !== null && !\is_int($value)) {
                $text = self::text($value, $position);
                if (str_contains($text, "\0")) {
                    throw self::nul($position, get_debug_type($value));
                }
                $size += \strlen($text);
                $params[$key] = $text;
            }
        }

        return $params;
    }

    private static function text(mixed $value, int $position): string
    {
        if (\is_bool($value)) {
            return $value ? 't' : 'f';
        }
        if (\is_float($value)) {
            return is_nan($value) ? 'NaN' : (is_infinite($value) ? ($value > 0 ? 'Infinity' : '-Infinity') : var_export($value, true));
        }
        if (\is_array($value) || $value instanceof \JsonSerializable) {
            try {
                return json_encode($value, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION);
            } catch (\JsonException $e) {
                throw new PgParameterException(sprintf(
                    'Query parameter $%d (%s) cannot be sent as JSON: %s. Fix the value (invalid UTF-8 and NaN or Infinity inside an array are the usual causes), or pass the text yourself.',
                    $position,
                    get_debug_type($value),
                    $e->getMessage(),
                ), 0, $e);
            }
        }
        if ($value instanceof \DateTimeInterface) {
            return $value->format('Y-m-d H:i:s.uP');
        }
        if ($value instanceof \BackedEnum) {
            return (string) $value->value;
        }
        if ($value instanceof \Stringable) {
            return (string) $value;
        }

        throw new PgParameterException(sprintf(
            'Query parameter $%d is of type %s, which has no PostgreSQL form; pass a string, int, float, bool, null, array (sent as JSON), DateTimeInterface, BackedEnum or Stringable.',
            $position,
            get_debug_type($value),
        ));
    }

    private static function nul(int $position, string $type): PgParameterException
    {
        return new PgParameterException(sprintf(
            'Query parameter $%d (%s) holds a NUL byte, which PostgreSQL text cannot hold (libpq would cut the value short there). Strip it, or store the bytes in a bytea column (encode them with pg_escape_bytea() or as hex).',
            $position,
            $type,
        ));
    }
}
