<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * Frames a streamed response body with the chunked transfer coding (RFC 9112 §7.1). Send the head
 * from {@see ResponseSerializer::serialize()} with $chunked = true, then each chunk(), then end().
 */
final class ChunkedEncoder
{
    private bool $ended = false;

    /** One chunk; "" for empty data, since a zero-size chunk would end the body. */
    public function chunk(string $data): string
    {
        if ($this->ended) {
            throw new \LogicException('The chunked body has already ended; create a new ChunkedEncoder per response.');
        }
        if ($data === '') {
            return '';
        }

        return dechex(\strlen($data)) . "\r\n" . $data . "\r\n";
    }

    /**
     * The last chunk and optional trailer fields.
     *
     * @param array<string, string>|null $trailers
     */
    public function end(?array $trailers = null): string
    {
        if ($this->ended) {
            throw new \LogicException('The chunked body has already ended; end() may only be called once.');
        }
        $this->ended = true;
        $out = "0\r\n";
        foreach ($trailers ?? [] as $name => $value) {
            $name = (string) $name;
            if (!FieldName::isValid($name) || strpbrk($value, "\r\n\0") !== false) {
                throw new \InvalidArgumentException(\sprintf('Trailer "%s" needs a token name and a value without CR, LF or NUL.', $name));
            }
            $out .= $name . ': ' . $value . "\r\n";
        }

        return $out . "\r\n";
    }

    public function ended(): bool
    {
        return $this->ended;
    }
}
