<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\WebSocket\Exception\HandshakeException;

/**
 * One extension of a Sec-WebSocket-Extensions field (RFC 6455 §9.1): its name and its parameters
 * in order, a parameter without a value having null. parse() reads the whole field.
 */
final readonly class ExtensionOffer
{
    /**
     * @param list<array{string, ?string}> $params
     */
    public function __construct(
        public string $name,
        public array $params,
    ) {}

    /**
     * extension-list = 1#( token *( ";" token [ "=" ( token | quoted-string ) ] ) )
     * Names are lower-cased; a quoted value is unquoted and must then be a token.
     *
     * @return list<self>
     *
     * @throws HandshakeException when the field does not follow that grammar
     */
    public static function parse(string $field): array
    {
        $offers = [];
        $length = \strlen($field);
        $at = 0;
        while (true) {
            $at += strspn($field, " \t,", $at);
            if ($at >= $length) {
                break;
            }
            $name = self::token($field, $at);
            $params = [];
            while (true) {
                $at += strspn($field, " \t", $at);
                if ($at >= $length || $field[$at] === ',') {
                    break;
                }
                if ($field[$at] !== ';') {
                    throw self::malformed($field, "expected ';' or ',' at offset {$at}");
                }
                ++$at;
                $at += strspn($field, " \t", $at);
                $param = self::token($field, $at);
                $at += strspn($field, " \t", $at);
                $value = null;
                if ($at < $length && $field[$at] === '=') {
                    ++$at;
                    $at += strspn($field, " \t", $at);
                    if ($at < $length && $field[$at] === '"') {
                        $value = self::quoted($field, $at);
                        if ($value === '' || strspn($value, Handshake::TOKEN_CHARS) !== \strlen($value)) {
                            throw self::malformed($field, "the quoted value of {$param} is not a token");
                        }
                    } else {
                        $value = self::token($field, $at);
                    }
                }
                $params[] = [$param, $value];
            }
            $offers[] = new self($name, $params);
        }
        if ($offers === []) {
            throw self::malformed($field, 'it names no extension');
        }

        return $offers;
    }

    private static function token(string $field, int &$at): string
    {
        $length = strspn($field, Handshake::TOKEN_CHARS, $at);
        if ($length === 0) {
            throw self::malformed($field, "expected a token at offset {$at}");
        }
        $token = strtolower(substr($field, $at, $length));
        $at += $length;

        return $token;
    }

    private static function quoted(string $field, int &$at): string
    {
        $value = '';
        $length = \strlen($field);
        for (++$at; $at < $length; ++$at) {
            $char = $field[$at];
            if ($char === '"') {
                ++$at;

                return $value;
            }
            if ($char === '\\') {
                ++$at;
                if ($at >= $length) {
                    break;
                }
                $char = $field[$at];
            }
            $value .= $char;
        }

        throw self::malformed($field, 'a quoted string is not closed');
    }

    private static function malformed(string $field, string $why): HandshakeException
    {
        return new HandshakeException(400, "Sec-WebSocket-Extensions is malformed ({$why}): \"{$field}\". Send e.g. \"permessage-deflate; client_max_window_bits\".");
    }
}
