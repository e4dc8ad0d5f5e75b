<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * Checks that a header field name is a token (RFC 9110 §5.1). Every response is checked, and
 * strspn() compares each byte with the whole token alphabet, so names already seen are
 * remembered (a bounded set: applications use few distinct names), with their lower-case form
 * for the serializer.
 *
 * @internal
 */
final class FieldName
{
    private const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    private const MAX_REMEMBERED = 256;

    /** @var array<string, string> valid names, each to its lower-case form */
    private static array $valid = [];

    public static function isValid(string $name): bool
    {
        if (isset(self::$valid[$name])) {
            return true;
        }
        if ($name === '' || strspn($name, self::TCHAR) !== \strlen($name)) {
            return false;
        }
        if (\count(self::$valid) >= self::MAX_REMEMBERED) {
            self::$valid = [];
        }
        self::$valid[$name] = strtolower($name);

        return true;
    }

    /**
     * The name in lower case, without making a new string for a name seen before.
     */
    public static function lower(string $name): string
    {
        return self::$valid[$name] ?? strtolower($name);
    }
}
