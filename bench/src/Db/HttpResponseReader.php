<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * Splits the bytes of one keep-alive HTTP/1.1 connection into responses (Content-Length or
 * chunked bodies; one request at a time, so no HEAD or 1xx handling is needed).
 */
final class HttpResponseReader
{
    private string $buffer = '';

    /**
     * Adds bytes and returns the responses they complete, in order.
     *
     * @return list<ReadResponse>
     *
     * @throws \UnexpectedValueException when the bytes are not an HTTP/1.x response
     */
    public function feed(string $bytes): array
    {
        $this->buffer .= $bytes;
        $responses = [];
        while (($response = $this->next()) !== null) {
            $responses[] = $response;
        }

        return $responses;
    }

    private function next(): ?ReadResponse
    {
        $headEnd = strpos($this->buffer, "\r\n\r\n");
        if ($headEnd === false) {
            if (\strlen($this->buffer) > 65_536) {
                throw new \UnexpectedValueException('No end of response head within 64 KiB.');
            }

            return null;
        }
        $head = substr($this->buffer, 0, $headEnd);
        if (preg_match('/^HTTP\/1\.[01] (\d{3})/', $head, $status) !== 1) {
            throw new \UnexpectedValueException('Not an HTTP/1.x response: ' . substr($head, 0, 80));
        }
        $close = preg_match('/^connection:\s*close/mi', $head) === 1;
        $bodyStart = $headEnd + 4;
        if (preg_match('/^content-length:\s*(\d+)/mi', $head, $length) === 1) {
            $end = $bodyStart + (int) $length[1];
            if (\strlen($this->buffer) < $end) {
                return null;
            }
            $body = substr($this->buffer, $bodyStart, (int) $length[1]);
            $this->buffer = substr($this->buffer, $end);

            return new ReadResponse((int) $status[1], $body, $close);
        }
        if (preg_match('/^transfer-encoding:\s*chunked/mi', $head) === 1) {
            return $this->chunked((int) $status[1], $bodyStart, $close);
        }
        // No framing: the body runs until the server closes, which keep-alive does not allow.
        throw new \UnexpectedValueException('A response without Content-Length or chunked encoding cannot be used on a keep-alive connection.');
    }

    private function chunked(int $status, int $offset, bool $close): ?ReadResponse
    {
        $body = '';
        while (true) {
            $lineEnd = strpos($this->buffer, "\r\n", $offset);
            if ($lineEnd === false) {
                return null;
            }
            $sizeText = trim(explode(';', substr($this->buffer, $offset, $lineEnd - $offset), 2)[0]);
            if ($sizeText === '' || !ctype_xdigit($sizeText)) {
                throw new \UnexpectedValueException("Bad chunk size '{$sizeText}'.");
            }
            $size = (int) hexdec($sizeText);
            $offset = $lineEnd + 2;
            if ($size === 0) {
                // Trailers (usually none), then the empty line.
                $end = strpos($this->buffer, "\r\n", $offset);
                while ($end !== false && $end !== $offset) {
                    $offset = $end + 2;
                    $end = strpos($this->buffer, "\r\n", $offset);
                }
                if ($end === false) {
                    return null;
                }
                $this->buffer = substr($this->buffer, $end + 2);

                return new ReadResponse($status, $body, $close);
            }
            if (\strlen($this->buffer) < $offset + $size + 2) {
                return null;
            }
            $body .= substr($this->buffer, $offset, $size);
            $offset += $size + 2;
        }
    }
}
