<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * Turns a {@see Response} into HTTP/1.1 bytes.
 */
final class ResponseSerializer
{
    /** The interim response to send when {@see Parser\RequestParser::needsContinue()} is true. */
    public const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

    /** Statuses whose last head is kept (see $heads). */
    private const MAX_HEADS = 64;

    /** @var array<int, array{array<string, string|list<string>>, string, bool}> per status: the fields last written, their head (status line and fields, without Date and framing), whether they carry Date */
    private static array $heads = [];

    /** @var array<int, array{array<string, string|list<string>>, string, bool}> per status: the head written before the last one (see $heads) */
    private static array $previousHeads = [];

    private static string $dateValue = '';

    private static string $dateLine = '';

    /**
     * @param bool $keepAlive false adds "Connection: close"; the caller closes after writing
     * @param string $date the Date value, normally {@see HttpDate::now()}; a Date header on the response wins
     * @param bool $head answer to HEAD: same head as GET (Content-Length of the body), no body
     * @param bool $chunked frame with Transfer-Encoding: chunked; a non-empty body becomes the first
     *                      chunk, later chunks and the end come from {@see ChunkedEncoder}
     * @param string $protocolVersion the request's version: an HTTP/1.0 client is told "Connection:
     *                                keep-alive" explicitly and cannot receive chunked responses
     */
    public static function serialize(
        Response $response,
        bool $keepAlive,
        string $date,
        bool $head = false,
        bool $chunked = false,
        string $protocolVersion = '1.1',
    ): string {
        $status = $response->status;
        $headers = $response->headers;
        // The status line and the fields, as written for the same status and fields lately (two
        // per status): a handler answers with the same literal array (an immutable one, so ===
        // compares one pointer) request after request.
        $cached = self::$heads[$status] ?? null;
        if ($cached !== null && $cached[0] === $headers) {
            [, $out, $hasDate] = $cached;
        } else {
            $other = self::$previousHeads[$status] ?? null;
            if ($other !== null && $other[0] === $headers) {
                [, $out, $hasDate] = $other;
            } else {
                [$out, $hasDate] = self::head($status, $headers);
                $other = [$headers, $out, $hasDate];
                if (\count(self::$heads) >= self::MAX_HEADS) {
                    self::$heads = self::$previousHeads = [];
                }
            }
            if ($cached !== null) {
                self::$previousHeads[$status] = $cached;
            }
            self::$heads[$status] = $other;
        }
        if ($hasDate) {
            $dateLine = '';
        } else {
            if ($date !== self::$dateValue) {
                self::$dateValue = $date;
                self::$dateLine = 'Date: ' . $date . "\r\n";
            }
            $dateLine = self::$dateLine;
        }
        $body = $response->body;
        if ($keepAlive && !$chunked && !$head && $status >= 200 && $status !== 204 && $status !== 304 && $protocolVersion !== '1.0') {
            // The usual answer, made in one piece.
            return $out . $dateLine . 'Content-Length: ' . \strlen($body) . "\r\n\r\n" . $body;
        }
        $out .= $dateLine;

        // RFC 9110 §6.4.1: 1xx, 204 and 304 never have content.
        $noContent = $status < 200 || $status === 204 || $status === 304;
        if ($chunked && !$noContent) {
            if ($protocolVersion === '1.0') {
                throw new \LogicException('An HTTP/1.0 client cannot receive a chunked response; send it with Content-Length.');
            }
            $out .= "Transfer-Encoding: chunked\r\n";
        } elseif (!$noContent) {
            $out .= 'Content-Length: ' . \strlen($body) . "\r\n";
        }

        if (!$keepAlive) {
            $out .= "Connection: close\r\n";
        } elseif ($protocolVersion === '1.0') {
            $out .= "Connection: keep-alive\r\n";
        }
        $out .= "\r\n";

        if ($head || $noContent || $body === '') {
            return $out;
        }
        if ($chunked) {
            return $out . dechex(\strlen($body)) . "\r\n" . $body . "\r\n";
        }

        return $out . $body;
    }

    /**
     * The head of a 101 Switching Protocols response: its fields as they are (Content-Length and
     * Transfer-Encoding left out: it has no body), "Connection: Upgrade" (this serializer owns
     * Connection) and Date. What follows it on the connection belongs to the new protocol.
     */
    public static function switchingProtocols(Response $response, string $date): string
    {
        if ($response->status !== 101) {
            throw new \InvalidArgumentException("switchingProtocols() writes a 101 response, not a {$response->status}; use serialize().");
        }
        $out = 'HTTP/1.1 101 ' . Status::reason(101) . "\r\n";
        $hasDate = false;
        foreach ($response->headers as $name => $value) {
            $lower = FieldName::lower((string) $name);
            if ($lower === 'content-length' || $lower === 'transfer-encoding' || $lower === 'connection') {
                continue;
            }
            $hasDate = $hasDate || $lower === 'date';
            foreach (\is_array($value) ? $value : [$value] as $item) {
                $out .= $name . ': ' . $item . "\r\n";
            }
        }

        return $out . ($hasDate ? '' : 'Date: ' . $date . "\r\n") . "Connection: Upgrade\r\n\r\n";
    }

    /**
     * The status line and the fields of a response (framing fields left out), and whether the
     * fields carry a Date.
     *
     * @param array<string, string|list<string>> $headers
     *
     * @return array{string, bool}
     */
    private static function head(int $status, array $headers): array
    {
        $out = 'HTTP/1.1 ' . $status . ' ' . Status::reason($status) . "\r\n";
        $hasDate = false;
        foreach ($headers as $name => $value) {
            $lower = FieldName::lower((string) $name);
            if ($lower === 'content-length' || $lower === 'transfer-encoding' || $lower === 'connection') {
                continue;
            }
            if ($lower === 'date') {
                $hasDate = true;
            }
            if (\is_array($value)) {
                foreach ($value as $item) {
                    $out .= $name . ': ' . $item . "\r\n";
                }
            } else {
                $out .= $name . ': ' . $value . "\r\n";
            }
        }

        return [$out, $hasDate];
    }
}
