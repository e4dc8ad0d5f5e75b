<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Connection;
use Nexus\Io\Connector;

final class FuzzTest extends HttpServerTestCase
{
    private const SEED = 20_261_122;
    private const CASES = 300;
    private const CONCURRENT = 30;

    private const SEEDS = [
        "GET /path?q=1 HTTP/1.1\r\nHost: example\r\nAccept: */*\r\n\r\n",
        "POST /submit HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n\r\nhello world",
        "POST /chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
        "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "PUT /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
        "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ];

    public function testRandomAndMutatedRequestsNeverBreakTheServer(): void
    {
        $server = $this->serve(
            static fn(Request $r): Response => Response::text($r->method() . ' ' . $r->path() . ' ' . \strlen($r->body())),
            new ServerOptions(new ParserLimits(maxRequestLineLength: 512, maxHeaderBytes: 2048, maxBodyBytes: 4096), headerTimeout: 0.3, keepAliveTimeout: 0.3, lingerTimeout: 0.3),
        );
        mt_srand(self::SEED);
        $inputs = [];
        for ($i = 0; $i < self::CASES; ++$i) {
            $inputs[] = $this->mutate(self::SEEDS[mt_rand(0, \count(self::SEEDS) - 1)]);
        }

        $done = 0;
        $started = 0;
        $badReplies = [];
        $statuses = [];
        $launch = function () use (&$launch, &$done, &$started, &$badReplies, &$statuses, $inputs, $server): void {
            if ($started >= \count($inputs)) {
                return;
            }
            $input = $inputs[$started++];
            Connector::connect($this->loop, $server->address())->onSettle(
                static function (?\Throwable $error, mixed $connection) use (&$launch, &$done, &$badReplies, &$statuses, $input): void {
                    if (!$connection instanceof Connection) {
                        $badReplies[] = 'connect failed: ' . $error?->getMessage();
                        ++$done;
                        $launch();

                        return;
                    }
                    $raw = '';
                    $connection->onData(static function (string $data) use (&$raw): void {
                        $raw .= $data;
                    });
                    $connection->onClose(static function () use (&$launch, &$done, &$badReplies, &$statuses, &$raw, $input): void {
                        if ($raw !== '' && !str_starts_with($raw, 'HTTP/1.1 ')) {
                            $badReplies[] = json_encode([$input, substr($raw, 0, 200)]);
                        }
                        $status = (int) substr($raw, 9, 3);
                        $statuses[$status] = ($statuses[$status] ?? 0) + 1;
                        ++$done;
                        $launch();
                    });
                    $connection->onEnd(static function () use ($connection): void {
                        $connection->close();
                    });
                    $connection->write($input);
                    // Half of them also say they are done sending; the rest leave it to the timeouts.
                    if (\strlen($input) % 2 === 0) {
                        $connection->end();
                    }
                },
            );
        };
        for ($i = 0; $i < self::CONCURRENT; ++$i) {
            $launch();
        }
        $this->runUntil(static function () use (&$done): bool {
            return $done >= self::CASES;
        });

        self::assertSame([], $badReplies);
        self::assertGreaterThan(10, $statuses[200] ?? 0, 'some mutations are still valid requests');
        self::assertGreaterThan(50, $statuses[400] ?? 0, 'most are not');
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
        $client = $this->connect();
        $client->send("GET /still-alive HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);
        self::assertSame(200, $client->responses[0]->status);
        self::assertSame('GET /still-alive 0', $client->responses[0]->body);
        self::assertSame([], $this->logger->messages('error'));
    }

    private function mutate(string $input): string
    {
        $rounds = mt_rand(1, 4);
        for ($r = 0; $r < $rounds; ++$r) {
            $length = \strlen($input);
            if ($length === 0) {
                return $input;
            }
            $at = mt_rand(0, $length - 1);
            switch (mt_rand(0, 6)) {
                case 0: // truncate
                    $input = substr($input, 0, $at);

                    break;
                case 1: // flip a byte
                    $input[$at] = \chr(mt_rand(0, 255));

                    break;
                case 2: // insert random bytes
                    $noise = '';
                    for ($n = mt_rand(1, 8); $n > 0; --$n) {
                        $noise .= \chr(mt_rand(0, 255));
                    }
                    $input = substr($input, 0, $at) . $noise . substr($input, $at);

                    break;
                case 3: // drop a byte (often a CR, making a bare LF)
                    $input = substr($input, 0, $at) . substr($input, $at + 1);

                    break;
                case 4: // repeat a slice (long lines, duplicate headers)
                    $slice = substr($input, $at, mt_rand(1, 64));
                    $input = substr($input, 0, $at) . str_repeat($slice, mt_rand(2, 40)) . substr($input, $at);

                    break;
                case 5: // a framing header that lies or conflicts
                    $fields = ["Content-Length: 99999\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: -1\r\n", "Transfer-Encoding: gzip\r\n", "Expect: 100-continue\r\n", "Host: y\r\n"];
                    $line = strpos($input, "\r\n");
                    $at = $line === false ? $at : $line + 2;
                    $input = substr($input, 0, $at) . $fields[mt_rand(0, \count($fields) - 1)] . substr($input, $at);

                    break;
                default: // pure garbage
                    $input = substr(str_shuffle(str_repeat("GET / HTTP/1.1\r\n: \0\x7f", 4)), 0, mt_rand(1, 60));
            }
        }

        return $input;
    }
}
