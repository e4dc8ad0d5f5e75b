<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ResponseStream;
use Nexus\Http\Server\StreamClosedException;
use Nexus\Runtime\Deferred;

final class StreamingTest extends HttpServerTestCase
{
    private function streamer(int $pieces, string $piece): \Closure
    {
        return static function (Request $r) use ($pieces, $piece): Response {
            if ($r->path() !== '/stream') {
                return Response::text('plain ' . $r->path());
            }

            return Response::stream(200, ['Content-Type' => 'text/plain'], static function (ResponseStream $out) use ($pieces, $piece): void {
                for ($i = 0; $i < $pieces; ++$i) {
                    $out->write($i . ':' . $piece . "\n");
                }
            });
        };
    }

    public function testStreamedResponseArrivesCompleteAndChunked(): void
    {
        $piece = str_repeat('x', 10_000);
        $this->serve($this->streamer(500, $piece)); // about 5 MB: the producer waits for drains
        $client = $this->connect();
        $client->send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n", requests: 2);
        $this->waitResponses($client, 2);

        $response = $client->responses[0];
        self::assertSame('chunked', $response->header('Transfer-Encoding'));
        self::assertNull($response->header('Content-Length'));
        $expected = '';
        for ($i = 0; $i < 500; ++$i) {
            $expected .= $i . ':' . $piece . "\n";
        }
        self::assertSame(md5($expected), md5($response->body));
        self::assertSame('plain /after', $client->responses[1]->body, 'the connection stays usable after the stream');
    }

    public function testAStreamWaitsForTheResponsesBeforeIt(): void
    {
        $loop = $this->loop;
        $this->serve(static function (Request $r) use ($loop): Response {
            if ($r->path() === '/slow') {
                $timer = new Deferred($loop);
                $loop->delay(0.05, static fn() => $timer->resolve(null));
                $timer->future()->await();

                return Response::text('slow');
            }

            return Response::stream(200, [], static function (ResponseStream $out): void {
                $out->write('streamed');
            });
        });
        $client = $this->connect();
        $client->send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /stream HTTP/1.1\r\nHost: x\r\n\r\n", requests: 2);
        $this->waitResponses($client, 2);

        self::assertSame(['slow', 'streamed'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
    }

    public function testHttp10StreamIsDelimitedByClosing(): void
    {
        $this->serve($this->streamer(3, 'abc'));
        $client = $this->connect();
        $client->send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        $this->waitClosed($client);

        self::assertCount(1, $client->responses);
        self::assertNull($client->responses[0]->header('Transfer-Encoding'));
        self::assertNull($client->responses[0]->header('Content-Length'));
        self::assertSame('close', $client->responses[0]->header('Connection'));
        self::assertSame("0:abc\n1:abc\n2:abc\n", $client->responses[0]->body);
    }

    public function testHeadOfAStreamSendsTheHeadOnly(): void
    {
        $this->serve($this->streamer(3, 'abc'));
        $client = $this->connect();
        $client->send("HEAD /stream HTTP/1.1\r\nHost: x\r\n\r\n", head: true);
        $client->send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 2);

        self::assertSame('chunked', $client->responses[0]->header('Transfer-Encoding'));
        self::assertSame('', $client->responses[0]->body);
        self::assertSame('plain /next', $client->responses[1]->body);
    }

    public function testProducerLearnsThatTheClientWentAway(): void
    {
        $caught = null;
        $this->serve(static function () use (&$caught): Response {
            return Response::stream(200, [], static function (ResponseStream $out) use (&$caught): void {
                try {
                    for ($i = 0; $i < 100_000; ++$i) { // 6 GiB: far more than the socket buffers hold
                        $out->write(str_repeat('y', 65_536));
                    }
                } catch (StreamClosedException $e) {
                    $caught = $e;
                }
            });
        });
        $client = $this->connect();
        $client->connection->pause();
        $client->send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runFor(0.05);
        $client->connection->close();
        $this->runUntil(static function () use (&$caught): bool {
            return $caught !== null;
        });

        self::assertInstanceOf(StreamClosedException::class, $caught);
    }

    public function testProducerFailureCutsTheConnectionAndIsLogged(): void
    {
        $this->serve(static fn(): Response => Response::stream(200, [], static function (ResponseStream $out): void {
            $out->write('partial');

            throw new \RuntimeException('disk on fire');
        }));
        $client = $this->connect();
        $client->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitClosed($client);

        self::assertSame([], $client->responses, 'the body never ended, so no complete response');
        self::assertStringContainsString("7\r\npartial\r\n", $client->raw);
        self::assertSame(['A streamed response failed half-way; closing its connection: disk on fire'], $this->logger->messages('error'));
    }
}
