<?php

declare(strict_types=1);

namespace Nexus\Log;

/**
 * Replaces PSR-3 {placeholders} with context values.
 */
final class Interpolator
{
    /**
     * @param mixed[] $context
     */
    public static function interpolate(string $message, array $context): string
    {
        if (!str_contains($message, '{')) {
            return $message;
        }
        $replacements = [];
        foreach ($context as $key => $value) {
            $replacements['{' . $key . '}'] = match (true) {
                \is_string($value), \is_int($value), \is_float($value) => (string) $value,
                \is_bool($value) => $value ? 'true' : 'false',
                $value === null => 'null',
                $value instanceof \Stringable => (string) $value,
                default => get_debug_type($value),
            };
        }

        return strtr($message, $replacements);
    }
}
