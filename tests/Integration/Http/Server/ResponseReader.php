<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Io\Connection;

/**
 * A strict little HTTP/1.1 response parser for the tests: collects what the server sends on one
 * connection, splits it into responses (Content-Length, chunked, or until close) and interim 1xx.
 */
final class ResponseReader
{
    /** @var list<ReceivedResponse> */
    public array $responses = [];
    /** @var list<int> interim (1xx) statuses */
    public array $interim = [];
    public bool $closed = false;
    public string $raw = '';
    private string $buffer = '';
    /** @var list<bool> per request sent, in order: was it HEAD */
    private array $heads = [];

    public function __construct(public readonly Connection $connection)
    {
        $connection->onData(function (string $data): void {
            $this->raw .= $data;
            $this->buffer .= $data;
            $this->parse(false);
        });
        $connection->onEnd(function (): void {
            $this->parse(true);
            $this->closed = true;
            $this->connection->close();
        });
        $connection->onClose(function (): void {
            if (!$this->closed) {
                $this->parse(true);
                $this->closed = true;
            }
        });
    }

    public function send(string $bytes, bool $head = false, int $requests = 1): void
    {
        for ($i = 0; $i < $requests; ++$i) {
            $this->heads[] = $head;
        }
        $this->connection->write($bytes);
    }

    private function parse(bool $eof): void
    {
        while (true) {
            $end = strpos($this->buffer, "\r\n\r\n");
            if ($end === false) {
                return;
            }
            $lines = explode("\r\n", substr($this->buffer, 0, $end));
            $statusLine = array_shift($lines);
            if (preg_match('~^HTTP/1\.[01] (\d{3}) ~', $statusLine, $m) !== 1) {
                throw new \UnexpectedValueException('Bad status line: ' . $statusLine);
            }
            $status = (int) $m[1];
            $headers = [];
            foreach ($lines as $line) {
                [$name, $value] = explode(':', $line, 2) + [1 => ''];
                $name = strtolower($name);
                $value = trim($value);
                $headers[$name] = isset($headers[$name]) ? $headers[$name] . ', ' . $value : $value;
            }
            $rest = substr($this->buffer, $end + 4);
            if ($status < 200) {
                $this->interim[] = $status;
                $this->buffer = $rest;

                continue;
            }
            $head = $this->heads[\count($this->responses)] ?? false;
            if ($head || $status === 204 || $status === 304) {
                $body = '';
            } elseif (isset($headers['transfer-encoding'])) {
                $body = '';
                $pos = 0;
                while (true) {
                    $lineEnd = strpos($rest, "\r\n", $pos);
                    if ($lineEnd === false) {
                        return;
                    }
                    $size = hexdec(substr($rest, $pos, $lineEnd - $pos));
                    \assert(\is_int($size));
                    if (\strlen($rest) < $lineEnd + 2 + $size + 2) {
                        return;
                    }
                    $body .= substr($rest, $lineEnd + 2, $size);
                    $pos = $lineEnd + 2 + $size + 2;
                    if ($size === 0) {
                        break;
                    }
                }
                $rest = substr($rest, $pos);
            } elseif (isset($headers['content-length'])) {
                $length = (int) $headers['content-length'];
                if (\strlen($rest) < $length) {
                    return;
                }
                $body = substr($rest, 0, $length);
                $rest = substr($rest, $length);
            } elseif ($eof) {
                $body = $rest;
                $rest = '';
            } else {
                return;
            }
            $this->responses[] = new ReceivedResponse($status, $headers, $body);
            $this->buffer = $rest;
        }
    }
}
