<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;
use Nexus\Runtime\Deferred;

/**
 * Requests received and not answered yet are bounded per connection (reading stops: TCP
 * backpressure) and over the server (a body that cannot fit gets 503 before it is read;
 * connections with requests in progress stop being read). Handlers here wait for the test to
 * release them, one every few milliseconds, as handlers waiting on a database or an actor do.
 */
final class BufferBudgetTest extends HttpServerTestCase
{
    private const KIB = 1024;

    /** @var list<Deferred<null>> handlers waiting to be released, oldest first */
    private array $waiting = [];
    private int $mostWaiting = 0;
    private int $mostBuffered = 0;

    public function testOneConnectionHoldsNoMoreThanItsBudgetOfPipelinedRequests(): void
    {
        $server = $this->serve($this->waitingHandler(), new ServerOptions(
            limits: new ParserLimits(maxBodyBytes: 256 * self::KIB),
            maxBufferedPerConnection: 512 * self::KIB,
        ));
        $this->releaseOneEvery(0.01);
        $client = $this->connect();
        $body = str_repeat('b', 200 * self::KIB);
        $request = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: " . \strlen($body) . "\r\n\r\n" . $body;
        $client->send(str_repeat($request, 16), requests: 16);
        $this->watchUntil(static fn(): bool => \count($client->responses) >= 16 || $client->closed);

        self::assertCount(16, $client->responses);
        foreach ($client->responses as $response) {
            self::assertSame(200, $response->status);
            self::assertSame((string) (200 * self::KIB), $response->body);
        }
        self::assertLessThanOrEqual(3, $this->mostWaiting, 'at most the budget of requests is taken from the connection (16 without it)');
        self::assertLessThanOrEqual(512 * self::KIB + 200 * self::KIB + 64 * self::KIB, $this->mostBuffered, 'the budget, one request and one read at most');
        self::assertSame(0, $server->bufferedBytes(), 'everything answered: nothing counted any more');
    }

    public function testABodyThatCannotFitInTheServerBudgetGets503BeforeItIsRead(): void
    {
        $server = $this->serve($this->waitingHandler(), $this->smallServerBudget());
        $first = $this->connect();
        $first->send(self::post(300 * self::KIB));
        $this->watchUntil(fn(): bool => \count($this->waiting) === 1);
        $second = $this->connect();
        $second->send(self::post(250 * self::KIB));
        $this->watchUntil(fn(): bool => \count($this->waiting) === 2);

        $third = $this->connect();
        $third->send(self::post(200 * self::KIB, withBody: false));
        $this->waitResponses($third, 1);
        $this->waitClosed($third);

        self::assertSame(503, $third->responses[0]->status, 'the declared body does not fit: refused from its head');
        self::assertSame('1', $third->responses[0]->header('Retry-After'));
        self::assertSame('close', $third->responses[0]->header('Connection'));
        self::assertSame([], $first->responses);

        $this->releaseOneEvery(0.01);
        $this->waitResponses($first, 1);
        $this->waitResponses($second, 1);
        self::assertSame((string) (300 * self::KIB), $first->responses[0]->body);
        self::assertSame((string) (250 * self::KIB), $second->responses[0]->body);
        $fourth = $this->connect();
        $fourth->send(self::post(200 * self::KIB));
        $this->waitResponses($fourth, 1);
        self::assertSame(200, $fourth->responses[0]->status, 'room again once the others were answered');
        self::assertSame(0, $server->bufferedBytes());
    }

    public function testAChunkedBodyThatTakesTheServerPastItsBudgetGets503(): void
    {
        $this->serve($this->waitingHandler(), $this->smallServerBudget());
        $first = $this->connect();
        $first->send(self::post(500 * self::KIB));
        $this->watchUntil(fn(): bool => \count($this->waiting) === 1);

        $chunked = $this->connect();
        $chunk = str_repeat('c', 16 * self::KIB);
        $chunked->send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" . str_repeat(dechex(\strlen($chunk)) . "\r\n{$chunk}\r\n", 16));
        $this->waitResponses($chunked, 1);

        self::assertSame(503, $chunked->responses[0]->status);
        $this->releaseOneEvery(0.01);
        $this->waitResponses($first, 1);
        self::assertSame(200, $first->responses[0]->status);
    }

    public function testAConnectionWithRequestsInProgressWaitsForTheServerBudgetInsteadOfFailing(): void
    {
        $server = $this->serve($this->waitingHandler(), $this->smallServerBudget());
        $first = $this->connect();
        $first->send(self::post(300 * self::KIB));
        $this->watchUntil(fn(): bool => \count($this->waiting) === 1);

        $pipelining = $this->connect();
        $pipelining->send(self::post(200 * self::KIB) . self::post(200 * self::KIB), requests: 2);
        $this->watchUntil(fn(): bool => \count($this->waiting) === 2);
        $this->releaseOneEvery(0.02);
        $this->watchUntil(static fn(): bool => \count($pipelining->responses) >= 2 || $pipelining->closed);

        self::assertSame([200, 200], array_map(static fn(ReceivedResponse $r): int => $r->status, $pipelining->responses), 'its second request waited, then was served');
        self::assertSame(200, $first->responses[0]->status ?? null);
        self::assertLessThanOrEqual(2, $this->mostWaiting, 'the second request was not taken while the server was over its budget');
        self::assertSame(0, $server->bufferedBytes());
    }

    protected function tearDown(): void
    {
        foreach ($this->waiting as $gate) {
            $gate->resolve(null);
        }
        $this->waiting = [];
        parent::tearDown();
    }

    private function smallServerBudget(): ServerOptions
    {
        // The smallest total the limits allow: 8 KiB + 16 KiB of head, 512 KiB of body.
        return new ServerOptions(
            limits: new ParserLimits(maxBodyBytes: 512 * self::KIB),
            maxBufferedPerConnection: 2048 * self::KIB,
            maxBufferedTotal: 536 * self::KIB + 64 * self::KIB,
        );
    }

    private static function post(int $bytes, bool $withBody = true): string
    {
        return "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: {$bytes}\r\n\r\n" . ($withBody ? str_repeat('p', $bytes) : '');
    }

    /**
     * A handler that answers with the size of the body it got, once the test releases it.
     *
     * @return \Closure(Request): Response
     */
    private function waitingHandler(): \Closure
    {
        return function (Request $request): Response {
            /** @var Deferred<null> $gate */
            $gate = new Deferred($this->loop);
            $this->waiting[] = $gate;
            $this->mostWaiting = max($this->mostWaiting, \count($this->waiting));
            $gate->future()->await();

            return Response::text((string) \strlen($request->body()));
        };
    }

    private function releaseOneEvery(float $seconds): void
    {
        $timer = $this->loop->repeat($seconds, function (): void {
            array_shift($this->waiting)?->resolve(null);
        });
        $this->loop->unreference($timer);
    }

    /**
     * Runs the loop until $condition holds, noting the most bytes the server held meanwhile.
     *
     * @param \Closure(): bool $condition
     */
    private function watchUntil(\Closure $condition): void
    {
        \assert($this->server !== null);
        $server = $this->server;
        $this->runUntil(function () use ($condition, $server): bool {
            $this->mostBuffered = max($this->mostBuffered, $server->bufferedBytes());

            return $condition();
        });
    }
}
