<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\Exception\BodyTooLargeException;
use Nexus\HttpClient\Exception\ConnectionLostException;
use Nexus\HttpClient\Exception\ContentDecodingException;
use Nexus\HttpClient\Exception\HeadTimeoutException;
use Nexus\HttpClient\Exception\HeadTooLargeException;
use Nexus\HttpClient\Exception\IdleTimeoutException;
use Nexus\HttpClient\Exception\MalformedResponseException;
use Nexus\HttpClient\Exception\TimeoutKind;
use Nexus\HttpClient\Exception\TotalTimeoutException;
use Nexus\HttpClient\RequestBody;
use Nexus\HttpClient\RequestOptions;
use Nexus\Io\Connection;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * Servers that answer badly or not at all: each case ends that request with its typed exception
 * and a closed connection, and the same client then gets a good answer from the same server.
 */
final class HostileServerTest extends HttpClientTestCase
{
    private const GOOD = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    /**
     * @return iterable<string, array{string, class-string<\Throwable>, string}>
     */
    public static function badAnswers(): iterable
    {
        yield 'not HTTP at all' => ["SSH-2.0-OpenSSH_9.2\r\n", MalformedResponseException::class, 'Malformed status line'];
        yield 'status line without a code' => ["HTTP/1.1 OK\r\n\r\n", MalformedResponseException::class, 'Malformed status line'];
        yield 'bare LF line endings' => ["HTTP/1.1 200 OK\nContent-Length: 2\n\nok", MalformedResponseException::class, 'Malformed status line'];
        yield 'HTTP/2 preface' => ["HTTP/2 200\r\n\r\n", MalformedResponseException::class, 'Malformed status line'];
        yield 'both Content-Length and Transfer-Encoding' => ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", MalformedResponseException::class, 'both Content-Length and Transfer-Encoding'];
        yield 'differing Content-Length values' => ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nokk", MalformedResponseException::class, 'differing Content-Length'];
        yield 'negative Content-Length' => ["HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", MalformedResponseException::class, 'Invalid Content-Length'];
        yield 'invalid chunk size' => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", MalformedResponseException::class, 'Invalid chunk size'];
        yield 'chunk longer than its size' => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n", MalformedResponseException::class, 'not followed by CRLF'];
        yield 'unknown transfer coding' => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", MalformedResponseException::class, 'reads only "chunked"'];
        yield 'obs-fold' => ["HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 0\r\n\r\n", MalformedResponseException::class, 'obs-fold'];
        yield 'space before the colon' => ["HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n", MalformedResponseException::class, 'Invalid header name'];
        yield 'oversized head' => ["HTTP/1.1 200 OK\r\nX-Big: " . str_repeat('a', 70_000) . "\r\n\r\n", HeadTooLargeException::class, 'maxHeadSize'];
        yield 'too many header fields' => ["HTTP/1.1 200 OK\r\n" . str_repeat("X-A: 1\r\n", 200) . "Content-Length: 0\r\n\r\n", HeadTooLargeException::class, 'maxHeaderCount'];
        yield 'closed mid-head' => ["HTTP/1.1 200 OK\r\nContent-Le", ConnectionLostException::class, 'middle of the response head'];
        yield 'closed without a word' => ['', ConnectionLostException::class, 'without answering'];
        yield 'closed mid-body' => ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", ConnectionLostException::class, '5 bytes short of the 10-byte body'];
        yield 'closed mid-chunked-body' => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", ConnectionLostException::class, 'middle of a chunked body'];
        yield 'corrupt gzip' => ["HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\nnot gzip!!", ContentDecodingException::class, 'does not decode'];
        yield 'switching protocols' => ["HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", MalformedResponseException::class, 'switched protocols'];
    }

    /**
     * @param class-string<\Throwable> $exception
     */
    #[DataProvider('badAnswers')]
    public function testABadAnswerFailsTheRequestClosesTheConnectionAndLeavesThePoolUsable(string $answer, string $exception, string $message): void
    {
        $server = $this->raw(static function (Connection $c, string $head, int $n) use ($answer): void {
            if ($n === 1) {
                $c->end($answer);
            } else {
                $c->write(self::GOOD);
            }
        });

        $error = $this->failureOf($this->client->get($server->url('/bad')));
        self::assertInstanceOf($exception, $error, $error::class . ': ' . $error->getMessage());
        self::assertStringContainsString($message, $error->getMessage());
        self::assertSame(0, $this->client->connectionCount(), 'the connection was closed, not pooled');
        $this->runUntil(static fn(): bool => $server->open === 0);

        $response = $this->client->get($server->url('/good'))->await(10.0);
        self::assertSame('ok', $response->body());
        self::assertSame(2, $server->accepted, 'the good request went over a new connection');
        self::assertSame(1, $this->client->connectionCount());
    }

    public function testAServerThatNeverAnswersEndsInAHeadTimeout(): void
    {
        $server = $this->raw(static function (): void {});
        $started = microtime(true);
        $error = $this->failureOf($this->client->get($server->url('/silent'), [], new RequestOptions(headTimeout: 0.3)));

        self::assertInstanceOf(HeadTimeoutException::class, $error);
        self::assertSame(TimeoutKind::Head, $error->kind);
        self::assertStringContainsString('No response head', $error->getMessage());
        self::assertGreaterThanOrEqual(0.29, microtime(true) - $started);
        self::assertSame(0, $this->client->connectionCount());
        $this->runUntil(static fn(): bool => $server->open === 0);
    }

    public function testABodyThatStallsEndsInAnIdleTimeout(): void
    {
        $server = $this->raw(static function (Connection $c): void {
            $c->write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel");
        });
        $error = $this->failureOf($this->client->get($server->url(), [], new RequestOptions(idleTimeout: 0.3)));

        self::assertInstanceOf(IdleTimeoutException::class, $error);
        self::assertSame(TimeoutKind::Idle, $error->kind);
        self::assertSame(0, $this->client->connectionCount());
    }

    public function testATrickleThatNeverEndsHitsTheTotalTimeout(): void
    {
        $loop = $this->loop;
        $server = $this->raw(static function (Connection $c) use ($loop): void {
            $c->write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
            $timer = $loop->repeat(0.05, static function () use ($c): void {
                if ($c->isWritable()) {
                    $c->write("1\r\nx\r\n");
                }
            });
            $c->onClose(static fn() => $loop->cancel($timer));
        });
        $error = $this->failureOf($this->client->get($server->url(), [], new RequestOptions(idleTimeout: 1.0, totalTimeout: 0.5)));

        self::assertInstanceOf(TotalTimeoutException::class, $error, $error->getMessage());
        self::assertSame(TimeoutKind::Total, $error->kind);
        self::assertStringContainsString('receiving the body', $error->getMessage());
        $this->runUntil(static fn(): bool => $server->open === 0);
    }

    public function testAGzipBombIsCutOffAtTheDecodedSizeCap(): void
    {
        $bomb = (string) gzencode(str_repeat("\0", 8 << 20), 9);
        $server = $this->raw(static function (Connection $c) use ($bomb): void {
            $c->write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " . \strlen($bomb) . "\r\n\r\n" . $bomb);
        });
        $client = $this->client = $this->client(new ClientOptions(maxDecodedSize: 1 << 20));
        $error = $this->failureOf($client->get($server->url()));

        self::assertInstanceOf(BodyTooLargeException::class, $error);
        self::assertStringContainsString('decompression bomb', $error->getMessage());
        self::assertLessThan(64 << 10, \strlen($bomb), 'a small body');
        self::assertSame(0, $client->connectionCount());
    }

    public function testABufferedBodyOverTheCapFailsAndTheConnectionIsClosed(): void
    {
        $server = $this->raw(static function (Connection $c): void {
            $c->write("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" . str_repeat('x', 5000));
        });
        $error = $this->failureOf($this->client->get($server->url(), [], new RequestOptions(maxBodySize: 1000)));

        self::assertInstanceOf(BodyTooLargeException::class, $error);
        self::assertStringContainsString('maxBodySize', $error->getMessage());
        self::assertSame(0, $this->client->connectionCount());
    }

    public function testBytesAfterTheResponseKeepTheConnectionOutOfThePool(): void
    {
        $server = $this->raw(static function (Connection $c, string $head, int $n): void {
            $c->write($n === 1 ? self::GOOD . 'HTTP/1.1 200 OK' : self::GOOD);
        });
        self::assertSame('ok', $this->client->get($server->url())->await(10.0)->body());
        self::assertSame(0, $this->client->connectionCount(), 'stray bytes: not reused');
        self::assertSame('ok', $this->client->get($server->url())->await(10.0)->body());
        self::assertSame(2, $server->accepted);
    }

    public function testAnIdleConnectionTheServerClosedIsNeverHandedOut(): void
    {
        $server = $this->raw(static function (Connection $c, string $head, int $n): void {
            $c->write(self::GOOD);
            if ($n === 1) {
                $c->end(); // closes right after answering, without saying Connection: close
            }
        });
        self::assertSame('ok', $this->client->get($server->url())->await(10.0)->body());
        // The server's side closes once the client has noticed the EOF and closed its own.
        $this->runUntil(static fn(): bool => $server->open === 0);

        self::assertSame('ok', $this->client->get($server->url())->await(10.0)->body());
        self::assertSame(2, $server->accepted);
        self::assertCount(2, $server->requests, 'no request went to the closed connection (no retry was needed)');
        self::assertSame(1, $this->client->connectionCount(), 'the closed connection left the pool when it was next looked at');
    }

    public function testAGetOnAConnectionClosedAsItWasReusedIsRetriedOnAFreshOne(): void
    {
        // The server answers the first request and then drops every later one on that connection
        // without a byte: the client cannot see the close before it reuses the connection.
        $server = $this->raw(static function (Connection $c, string $head, int $n): void {
            if ($n === 2) {
                $c->close();

                return;
            }
            $c->write(self::GOOD);
        });
        self::assertSame('ok', $this->client->get($server->url())->await(10.0)->body());
        self::assertSame('ok', $this->client->get($server->url())->await(10.0)->body());
        self::assertSame(2, $server->accepted);
        self::assertCount(3, $server->requests, 'the second GET was sent twice');
    }

    public function testAPostOnAConnectionClosedAsItWasReusedIsNotRetried(): void
    {
        $server = $this->raw(static function (Connection $c, string $head, int $n): void {
            if ($n === 2) {
                $c->close();

                return;
            }
            $c->write(self::GOOD);
        });
        self::assertSame('ok', $this->client->post($server->url(), 'a')->await(10.0)->body());
        $error = $this->failureOf($this->client->post($server->url(), 'b'));
        self::assertInstanceOf(ConnectionLostException::class, $error);
        self::assertCount(2, $server->requests, 'a POST is not sent twice');
    }

    public function testABodyThatCannotBeSentAgainIsNotRedirected(): void
    {
        $server = $this->raw(static function (Connection $c, string $head): void {
            if (str_starts_with($head, 'PUT /start')) {
                $c->write("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n");

                return;
            }
            $c->write(self::GOOD);
        });
        $options = new RequestOptions(maxRedirects: 3);
        $once = RequestBody::fromIterable((static function (): \Generator {
            yield 'piece';
        })());
        self::assertSame(302, $this->client->request('PUT', $server->url('/start'), [], $once, $options)->await(10.0)->status(), 'a generator cannot be replayed: the 302 is the answer');
        self::assertSame(200, $this->client->request('PUT', $server->url('/start'), [], 'again', $options)->await(10.0)->status(), 'a string body follows');
        // (The raw server splits at blank lines only: a body ends up in front of the next head.)
        self::assertStringContainsString('againPUT /next HTTP/1.1', (string) end($server->requests), 'sent again, body and all, as a PUT');
    }

    public function testInterimResponsesAreSkipped(): void
    {
        $server = $this->raw(static function (Connection $c): void {
            $c->write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" . self::GOOD);
        });
        $response = $this->client->get($server->url())->await(10.0);
        self::assertSame(200, $response->status());
        self::assertSame('ok', $response->body());
        self::assertSame(1, $this->client->connectionCount(), 'still reusable');
    }

    public function testABodyFramedByTheCloseIsReadToTheEnd(): void
    {
        $server = $this->raw(static function (Connection $c): void {
            $c->end("HTTP/1.1 200 OK\r\n\r\nuntil the end");
        });
        $response = $this->client->get($server->url())->await(10.0);
        self::assertSame('until the end', $response->body());
        self::assertSame(0, $this->client->connectionCount());
    }
}
