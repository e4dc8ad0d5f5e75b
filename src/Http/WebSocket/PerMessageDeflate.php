<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * The permessage-deflate parameters agreed in a handshake (RFC 7692), and the server's side of
 * that agreement: negotiate() picks the first acceptable offer and says what to answer.
 *
 * An offer is declined (the next one is tried; with none left the connection is uncompressed)
 * when it has an unknown or repeated parameter, a value out of range, or asks the server for an
 * 8-bit window, which zlib cannot produce for raw deflate.
 */
final readonly class PerMessageDeflate
{
    public const NAME = 'permessage-deflate';

    /**
     * @param string $response the Sec-WebSocket-Extensions value that accepts this agreement
     */
    public function __construct(
        public bool $serverNoContextTakeover = false,
        public bool $clientNoContextTakeover = false,
        public int $serverMaxWindowBits = 15,
        public int $clientMaxWindowBits = 15,
        public DeflateOptions $options = new DeflateOptions(),
        public string $response = self::NAME,
    ) {}

    /**
     * @param list<ExtensionOffer> $offers every extension the client offered, in its order
     */
    public static function negotiate(array $offers, DeflateOptions $options): ?self
    {
        foreach ($offers as $offer) {
            if ($offer->name === self::NAME) {
                $agreed = self::accept($offer, $options);
                if ($agreed !== null) {
                    return $agreed;
                }
            }
        }

        return null;
    }

    private static function accept(ExtensionOffer $offer, DeflateOptions $options): ?self
    {
        $seen = [];
        $serverNoContext = $options->serverNoContextTakeover;
        $clientNoContext = $options->clientNoContextTakeover;
        $serverBits = $options->windowBits;
        $serverBitsOffered = false;
        $clientBits = 15;
        foreach ($offer->params as [$name, $value]) {
            if (isset($seen[$name])) {
                return null;
            }
            $seen[$name] = true;
            switch ($name) {
                case 'server_no_context_takeover':
                case 'client_no_context_takeover':
                    if ($value !== null) {
                        return null;
                    }
                    if ($name === 'server_no_context_takeover') {
                        $serverNoContext = true;
                    } else {
                        $clientNoContext = true;
                    }
                    break;
                case 'server_max_window_bits':
                    $bits = self::windowBits($value);
                    if ($bits === null || $bits < 9) {
                        return null;
                    }
                    $serverBits = min($serverBits, $bits);
                    $serverBitsOffered = true;
                    break;
                case 'client_max_window_bits':
                    if ($value !== null) {
                        $bits = self::windowBits($value);
                        if ($bits === null) {
                            return null;
                        }
                        $clientBits = $bits;
                    }
                    break;
                default:
                    return null;
            }
        }
        $response = self::NAME;
        if ($serverNoContext) {
            $response .= '; server_no_context_takeover';
        }
        if ($clientNoContext) {
            $response .= '; client_no_context_takeover';
        }
        if ($serverBitsOffered || $serverBits < 15) {
            $response .= '; server_max_window_bits=' . $serverBits;
        }

        return new self($serverNoContext, $clientNoContext, $serverBits, $clientBits, $options, $response);
    }

    private static function windowBits(?string $value): ?int
    {
        if ($value === null || \strlen($value) > 2 || !ctype_digit($value)) {
            return null;
        }
        $bits = (int) $value;

        return $bits >= 8 && $bits <= 15 && $value[0] !== '0' ? $bits : null;
    }
}
