<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\ClientMetrics;
use Nexus\HttpClient\ClientResponse;
use Nexus\HttpClient\Exception\BodyTooLargeException;
use Nexus\HttpClient\Exception\ConnectionLostException;
use Nexus\HttpClient\Exception\HeadTimeoutException;
use Nexus\HttpClient\Exception\HttpClientException;
use Nexus\HttpClient\Exception\IdleTimeoutException;
use Nexus\HttpClient\Exception\RequestBodyException;
use Nexus\HttpClient\Exception\TimeoutKind;
use Nexus\HttpClient\Exception\TotalTimeoutException;
use Nexus\HttpClient\RequestBody;
use Nexus\HttpClient\ResponseBody;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Loop;
use Nexus\Trace\Span;

/**
 * One request on its way: waiting for a connection, sending, awaiting the head, receiving the
 * body, done. It settles its future exactly once (for a streamed response: with the head, and the
 * body stream then ends or fails once), and gives its connection back to the pool exactly once:
 * kept only when the response was complete, framed, keep-alive, with no stray bytes after it and
 * the whole request sent; closed otherwise.
 *
 * Its deadlines (the phase's: head or idle; and the total) are checked by the Dispatcher's one
 * sweep timer, not by a timer of its own.
 *
 * A request that fails on a reused connection before any byte of the answer arrived (the server
 * closed the idle connection just as it was sent) is sent again on another connection, at most
 * twice, when it is idempotent and its body can be sent again.
 *
 * When its future settles (or fails), an instrumented client's exchange adds its duration to
 * ClientMetrics and ends its span, if it has one.
 *
 * @internal
 */
final class Exchange
{
    public const WAITING = 0;
    public const SENDING = 1;
    public const AWAITING_HEAD = 2;
    public const RECEIVING = 3;
    public const DONE = 4;

    private const IDEMPOTENT = ['GET' => true, 'HEAD' => true, 'OPTIONS' => true, 'PUT' => true, 'DELETE' => true, 'TRACE' => true];
    private const MAX_RETRIES = 2;

    public int $phase = self::WAITING;
    /** When the current phase times out (\INF: never), and as which kind. */
    public float $deadline = \INF;
    public TimeoutKind $deadlineKind = TimeoutKind::Head;
    public readonly float $totalDeadline;
    public ?HttpConnection $connection = null;
    public ?DeferredCancellation $acquireCancel = null;
    /** the CLIENT span of a request sent from traced work */
    public ?Span $span = null;
    private readonly int|float $startedAt;
    private int $retries = 0;
    private ?ResponseHead $head = null;
    private string $received = '';
    private ?BodyDecoder $decoder = null;
    /** @var \WeakReference<ResponseBody>|null */
    private ?\WeakReference $stream = null;
    private bool $delivered = false;
    private bool $requestWritten = false;
    private bool $paused = false;
    private ?int $subscription = null;

    /**
     * @param string                     $bytes    the request head, with the body when it is a string
     * @param Deferred<ClientResponse>   $deferred
     */
    public function __construct(
        public readonly int $id,
        private readonly Dispatcher $dispatcher,
        private readonly Loop $loop,
        public readonly string $method,
        public readonly Target $target,
        private readonly string $bytes,
        private readonly ?RequestBody $body,
        public readonly Settings $settings,
        private readonly ?Cancellation $cancellation,
        private readonly Deferred $deferred,
        ?Span $span = null,
    ) {
        $this->totalDeadline = $loop->now() + $settings->totalTimeout;
        $this->startedAt = hrtime(true);
        $this->span = $span;
        if ($cancellation !== null) {
            $this->subscription = $cancellation->subscribe(function (CancelledException $e): void {
                $this->subscription = null;
                $this->fail($e);
            });
        }
    }

    /**
     * Sends the request on $connection (lent by the pool for this exchange alone).
     */
    public function start(HttpConnection $connection): void
    {
        if ($this->phase === self::DONE) {
            $this->dispatcher->giveBack($connection, true);

            return;
        }
        $this->connection = $connection;
        $connection->assign($this);
        $connection->parser->begin($this->method === 'HEAD');
        $this->phase = self::SENDING;
        $this->setDeadline($this->loop->now() + $this->settings->idleTimeout, TimeoutKind::Idle);
        $connection->write($this->bytes);
        if ($this->connection !== $connection) {
            return; // the write failed and the exchange failed or moved to another connection
        }
        if ($this->body === null) {
            $this->requestWritten = true;
            if ($this->phase === self::SENDING && $connection->flushed()) {
                $this->requestSent();
            }

            return;
        }
        $this->writeBody($connection, $this->body);
    }

    /**
     * Bytes from the server.
     */
    public function received(string $data): void
    {
        $connection = $this->connection;
        \assert($connection !== null);
        $parser = $connection->parser;
        $parser->feed($data);
        try {
            if ($this->head === null) {
                $head = $parser->head();
                if ($head === null) {
                    return;
                }
                $this->gotHead($head);
                if ($this->phase === self::DONE) {
                    return;
                }
            }
            while (($piece = $parser->body()) !== null) {
                $this->piece($piece);
                if ($this->phase === self::DONE) {
                    return;
                }
            }
            if ($parser->isComplete()) {
                $this->complete();
            } elseif (!$this->paused) {
                $this->deadline = $this->loop->now() + $this->settings->idleTimeout;
            }
        } catch (HttpClientException $e) {
            $this->fail($e);
        }
    }

    /**
     * The server closed its side (EOF), or reading failed ($error).
     */
    public function ended(?string $error): void
    {
        $connection = $this->connection;
        \assert($connection !== null);
        if ($error !== null) {
            $this->connectionFailed(new ConnectionLostException("The connection to {$this->target->origin} broke: {$error}."));

            return;
        }
        try {
            $connection->parser->end();
        } catch (ConnectionLostException $e) {
            $this->connectionFailed($e);

            return;
        }
        try {
            $this->complete();
        } catch (HttpClientException $e) {
            $this->fail($e);
        }
    }

    /**
     * The connection closed or broke under this exchange.
     */
    public function connectionFailed(\Throwable $reason): void
    {
        $connection = $this->connection;
        if (
            $connection !== null
            && $this->head === null
            && $connection->served > 0
            && !$connection->parser->receivedAny()
            && $this->retries < self::MAX_RETRIES
            && isset(self::IDEMPOTENT[$this->method])
            && ($this->body === null || $this->body->replayable)
            && $this->phase !== self::DONE
        ) {
            // The server closed this kept-alive connection as the request went out: try another.
            ++$this->retries;
            $connection->assign(null);
            $this->connection = null;
            $this->dispatcher->giveBack($connection, false);
            $this->phase = self::WAITING;
            $this->requestWritten = false;
            $this->deadline = \INF;
            $this->dispatcher->dispatch($this);

            return;
        }
        $this->fail($reason);
    }

    /**
     * Some bytes of the request went out (the idle deadline moves).
     */
    public function progressed(): void
    {
        if ($this->phase === self::SENDING) {
            $this->deadline = $this->loop->now() + $this->settings->idleTimeout;
        }
    }

    /**
     * The connection's write buffer emptied.
     */
    public function flushed(): void
    {
        if ($this->phase === self::SENDING && $this->requestWritten) {
            $this->requestSent();
        }
    }

    public function timedOut(TimeoutKind $kind): void
    {
        $this->fail(match ($kind) {
            TimeoutKind::Total => new TotalTimeoutException($this->settings->totalTimeout, \sprintf(
                '%s %s did not complete within %.3f s (totalTimeout; %s). Raise totalTimeout (\INF for a long-lived stream).',
                $this->method,
                $this->target->url,
                $this->settings->totalTimeout,
                $this->phaseName(),
            )),
            TimeoutKind::Head => new HeadTimeoutException($this->settings->headTimeout, \sprintf(
                'No response head from %s within %.3f s of sending %s %s (headTimeout): the server accepted the request but did not answer.',
                $this->target->origin,
                $this->settings->headTimeout,
                $this->method,
                $this->target->requestTarget,
            )),
            default => new IdleTimeoutException($this->settings->idleTimeout, \sprintf(
                'No byte %s %s for %.3f s (idleTimeout) during %s %s.',
                $this->phase === self::SENDING ? 'could be sent to' : 'came from',
                $this->target->origin,
                $this->settings->idleTimeout,
                $this->method,
                $this->target->url,
            )),
        });
    }

    /**
     * Ends the exchange with $error: its connection is closed (never reused), and the future (or
     * the body stream, once the head was delivered) fails.
     */
    public function fail(\Throwable $error): void
    {
        if ($this->phase === self::DONE) {
            return;
        }
        $this->phase = self::DONE;
        $this->unsubscribe();
        $connection = $this->connection;
        $this->connection = null;
        if ($connection !== null) {
            $connection->assign(null);
            $this->dispatcher->finished($this, $connection, false);
        } else {
            $this->dispatcher->finished($this, null, false);
            $acquire = $this->acquireCancel;
            $this->acquireCancel = null;
            $acquire?->cancel($error);
        }
        if ($this->delivered) {
            $this->stream?->get()?->fail($error);
        } else {
            $this->observed(0, $error);
            $this->deferred->reject($error);
        }
    }

    /**
     * The request has its answer (or failed): its duration, and the end of its span.
     */
    private function observed(int $status, ?\Throwable $error): void
    {
        if ($this->dispatcher->instrumented) {
            $seconds = (hrtime(true) - $this->startedAt) / 1e9;
            if ($error === null) {
                ($this->target->durations[$status][$this->method] ??= ClientMetrics::series($this->method, $this->target->origin, $this->target->host, $this->target->port, $status, null))->observe($seconds);
            } else {
                ClientMetrics::series($this->method, $this->target->origin, $this->target->host, $this->target->port, 0, $error)->observe($seconds);
            }
        }
        if ($this->span !== null) {
            ClientSpan::end($this->span, $status, $error);
            $this->span = null;
        }
    }

    private function requestSent(): void
    {
        $this->phase = self::AWAITING_HEAD;
        $this->setDeadline($this->loop->now() + $this->settings->headTimeout, TimeoutKind::Head);
    }

    private function gotHead(ResponseHead $head): void
    {
        $this->head = $head;
        $this->phase = self::RECEIVING;
        $this->setDeadline($this->loop->now() + $this->settings->idleTimeout, TimeoutKind::Idle);
        if ($this->settings->decompress && isset($head->headers['content-encoding'])) {
            $encoding = strtolower(trim(implode(',', $head->headers['content-encoding']), " \t"));
            if (BodyDecoder::supports($encoding) === true) {
                $this->decoder = new BodyDecoder($encoding === 'x-gzip' ? 'gzip' : $encoding, $this->settings->maxDecodedSize);
            }
        }
        if (!$this->settings->stream) {
            return;
        }
        $stream = new ResponseBody($this->loop, $this->settings->streamWindow, $this->resume(...), $this->abandon(...));
        $this->stream = \WeakReference::create($stream);
        $this->delivered = true;
        $this->observed($head->status, null);
        $this->deferred->resolve($this->response(null, $stream));
    }

    private function piece(string $piece): void
    {
        if ($this->decoder !== null) {
            $piece = $this->decoder->decode($piece);
            if ($piece === '') {
                return;
            }
        }
        if ($this->stream === null) {
            $this->received .= $piece;
            if (\strlen($this->received) > $this->settings->maxBodySize) {
                throw new BodyTooLargeException(\sprintf(
                    'The response body of %s %s is larger than %d bytes (maxBodySize): the connection was closed. Stream it (RequestOptions stream: true) or raise maxBodySize.',
                    $this->method,
                    $this->target->url,
                    $this->settings->maxBodySize,
                ));
            }

            return;
        }
        $stream = $this->stream->get();
        if ($stream === null) {
            $this->abandon();

            return;
        }
        if (!$stream->push($piece) && !$this->paused) {
            $this->paused = true;
            $this->deadline = \INF; // a reader that is behind is not an idle server
            $this->connection?->pauseReading();
        }
    }

    private function complete(): void
    {
        $this->decoder?->finish();
        $connection = $this->connection;
        \assert($connection !== null && $this->head !== null);
        $status = $this->head->status;
        $reusable = $this->head->keepAlive && $this->requestWritten && $connection->parser->pending() === 0 && $connection->flushed();
        $connection->assign(null);
        $this->connection = null;
        $this->phase = self::DONE;
        $this->unsubscribe();
        if ($reusable) {
            ++$connection->served;
        }
        $this->dispatcher->finished($this, $connection, $reusable);
        if ($this->delivered) {
            $this->stream?->get()?->finish();

            return;
        }
        $this->observed($status, null);
        $this->deferred->resolve($this->response($this->received, null));
    }

    private function response(?string $body, ?ResponseBody $stream): ClientResponse
    {
        $head = $this->head;
        \assert($head !== null);
        $headers = $head->headers;
        if ($this->decoder !== null) {
            unset($headers['content-encoding'], $headers['content-length']);
        }

        return new ClientResponse($head->status, $head->reason, $head->version, $headers, $this->target->url, $body, $stream, $this->settings->maxBodySize);
    }

    /**
     * The stream's reader caught up: read the socket again.
     */
    private function resume(): void
    {
        if ($this->paused && $this->phase === self::RECEIVING) {
            $this->paused = false;
            $this->deadline = $this->loop->now() + $this->settings->idleTimeout;
            $this->connection?->resumeReading();
        }
    }

    /**
     * Nobody will read the rest of the streamed body.
     */
    private function abandon(): void
    {
        if ($this->phase !== self::DONE) {
            $this->fail(new ConnectionLostException('The response body stream was closed before its end; the connection was closed with it.'));
        }
    }

    private function writeBody(HttpConnection $connection, RequestBody $body): void
    {
        $this->loop->async(function () use ($connection, $body): void {
            $chunked = $body->length === null;
            $sent = 0;
            foreach ($body->pieces() as $piece) {
                if ($this->connection !== $connection || $this->phase === self::DONE) {
                    return; // the exchange ended (an early answer, a failure) while the body was produced
                }
                if ($piece === '') {
                    continue;
                }
                $sent += \strlen($piece);
                if (!$chunked && $sent > $body->length) {
                    throw new RequestBodyException("The request body produced more than the {$body->length} bytes it declared: the request was aborted.");
                }
                if (!$connection->write($chunked ? dechex(\strlen($piece)) . "\r\n" . $piece . "\r\n" : $piece)) {
                    $connection->drained()->await();
                }
            }
            if ($this->connection !== $connection || $this->phase === self::DONE) {
                return;
            }
            if (!$chunked && $sent !== $body->length) {
                throw new RequestBodyException("The request body produced {$sent} bytes, not the {$body->length} it declared: the request was aborted.");
            }
            if ($chunked) {
                $connection->write("0\r\n\r\n");
            }
            $this->requestWritten = true;
            if ($this->phase === self::SENDING && $connection->flushed()) {
                $this->requestSent();
            }
        })->onSettle(function (?\Throwable $error) use ($connection): void {
            if ($error === null || $this->connection !== $connection || $this->phase === self::DONE) {
                return;
            }
            $this->fail($error instanceof RequestBodyException ? $error : new RequestBodyException('Producing the request body failed: ' . $error->getMessage(), 0, $error));
        });
    }

    private function setDeadline(float $at, TimeoutKind $kind): void
    {
        $this->deadline = $at;
        $this->deadlineKind = $kind;
        $this->dispatcher->deadlineAt($at);
    }

    private function unsubscribe(): void
    {
        if ($this->subscription !== null) {
            $this->cancellation?->unsubscribe($this->subscription);
            $this->subscription = null;
        }
    }

    private function phaseName(): string
    {
        return match ($this->phase) {
            self::WAITING => 'still waiting for a connection',
            self::SENDING => 'still sending the request',
            self::AWAITING_HEAD => 'still waiting for the response head',
            default => 'still receiving the body',
        };
    }
}
