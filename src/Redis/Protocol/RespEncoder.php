<?php

declare(strict_types=1);

namespace Nexus\Redis\Protocol;

/**
 * Encodes commands as RESP arrays of bulk strings, the only form Redis accepts from clients.
 */
final class RespEncoder
{
    private function __construct() {}

    /**
     * @param array<array-key, string|int|float> $args
     */
    public static function command(string $name, array $args): string
    {
        $out = '*' . (\count($args) + 1) . "\r\n$" . \strlen($name) . "\r\n" . $name . "\r\n";
        foreach ($args as $arg) {
            if (!\is_string($arg)) {
                $arg = \is_int($arg) ? (string) $arg : self::float($arg);
            }
            $out .= '$' . \strlen($arg) . "\r\n" . $arg . "\r\n";
        }

        return $out;
    }

    /**
     * @param array<array-key, string|int|float> $parts the name first, then the arguments
     */
    public static function parts(array $parts): string
    {
        $out = '*' . \count($parts) . "\r\n";
        foreach ($parts as $part) {
            if (!\is_string($part)) {
                $part = \is_int($part) ? (string) $part : self::float($part);
            }
            $out .= '$' . \strlen($part) . "\r\n" . $part . "\r\n";
        }

        return $out;
    }

    /**
     * The shortest text that reads back as the same double; Redis spells infinities "+inf"/"-inf".
     */
    public static function float(float $value): string
    {
        if (is_nan($value)) {
            throw new \InvalidArgumentException('Redis has no NaN: pass a finite number or an infinity.');
        }
        if (is_infinite($value)) {
            return $value > 0 ? '+inf' : '-inf';
        }
        if ($value === floor($value) && abs($value) < 1e15) {
            return (string) (int) $value;
        }

        return var_export($value, true);
    }
}
