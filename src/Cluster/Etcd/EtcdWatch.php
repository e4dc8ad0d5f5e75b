<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

use Nexus\Cluster\Exception\EtcdException;
use Nexus\Cluster\Exception\EtcdUnavailableException;
use Nexus\HttpClient\ClientResponse;
use Nexus\HttpClient\ResponseBody;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * A watch of etcd as a streamed HTTP response: the gateway writes one JSON object per line
 * ({"result": {...}}); each with events is passed on, in order, as soon as its line is complete.
 *
 * Bounds: a line longer than MAX_LINE ends the watch (EtcdException); the HTTP client stops
 * reading the socket while more than its stream window waits unread, so a slow consumer slows
 * etcd down instead of filling memory. The watch ends exactly once ($onEnd): etcd closed the
 * stream or went away (EtcdUnavailableException), it refused or cancelled the watch (its start
 * revision was compacted: EtcdException; read again and watch from there), or close() was called.
 */
final class EtcdWatch
{
    /** The longest line (one watch response) read. */
    public const MAX_LINE = 8 * 1024 * 1024;

    private bool $ended = false;
    private ?ResponseBody $body = null;
    /** The revision up to which every change has been passed on. */
    public int $revision = 0;

    /**
     * @param Future<ClientResponse>                $response
     * @param \Closure(list<WatchEvent>, int): void $onEvents
     * @param \Closure(\Throwable): void            $onEnd
     */
    public function __construct(
        private readonly Loop $loop,
        Future $response,
        private readonly \Closure $onEvents,
        private readonly \Closure $onEnd,
    ) {
        $response->onSettle(function (?\Throwable $error, mixed $response): void {
            if ($error !== null || !$response instanceof ClientResponse) {
                $this->end(new EtcdUnavailableException('etcd did not accept the watch: ' . ($error?->getMessage() ?? 'no response'), 0, $error));

                return;
            }
            if ($response->status() !== 200) {
                $this->end(new EtcdException("etcd refused the watch (status {$response->status()})."));

                return;
            }
            if ($this->ended) {
                $response->stream()->close();

                return;
            }
            $this->body = $response->stream();
            $this->loop->async($this->read(...))->ignore();
        });
    }

    public function isOpen(): bool
    {
        return !$this->ended;
    }

    /**
     * Ends the watch (its connection is closed); $onEnd is not called.
     */
    public function close(): void
    {
        $this->ended = true;
        $this->body?->close();
        $this->body = null;
    }

    private function read(): void
    {
        $buffer = '';
        try {
            while (!$this->ended && ($piece = $this->body?->read()) !== null) {
                $buffer .= $piece;
                while (($end = strpos($buffer, "\n")) !== false) {
                    $line = substr($buffer, 0, $end);
                    $buffer = substr($buffer, $end + 1);
                    if (trim($line) !== '') {
                        $this->line($line);
                    }
                    if ($this->ended) {
                        return;
                    }
                }
                if (\strlen($buffer) > self::MAX_LINE) {
                    throw new EtcdException('A watch response of more than ' . self::MAX_LINE . ' bytes: the watched prefix holds far more than a cluster\'s membership.');
                }
            }
            if (trim($buffer) !== '') {
                $this->line($buffer);
            }
            $this->end(new EtcdUnavailableException('etcd closed the watch.'));
        } catch (EtcdException | EtcdUnavailableException $e) {
            $this->end($e);
        } catch (\Throwable $e) {
            $this->end(new EtcdUnavailableException('The watch broke: ' . $e->getMessage(), 0, $e));
        }
    }

    /**
     * @throws EtcdException
     */
    private function line(string $line): void
    {
        try {
            $json = json_decode($line, true, 64, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new EtcdException("A watch response is not JSON: {$e->getMessage()}", 0, $e);
        }
        if (!\is_array($json)) {
            throw new EtcdException('A watch response is not a JSON object.');
        }
        if (isset($json['error'])) {
            $error = $json['error'];
            $message = \is_array($error) && \is_string($error['message'] ?? null) ? $error['message'] : 'no message';

            throw new EtcdUnavailableException("etcd ended the watch: {$message}");
        }
        $result = $json['result'] ?? null;
        if (!\is_array($result)) {
            return;
        }
        $header = $result['header'] ?? null;
        $revision = \is_array($header) ? EtcdClient::int($header, 'revision') : 0;
        if (($result['canceled'] ?? false) === true) {
            $compacted = EtcdClient::int($result, 'compact_revision');

            throw new EtcdException($compacted > 0
                ? "etcd cancelled the watch: revisions up to {$compacted} were compacted; read the prefix again."
                : 'etcd cancelled the watch: ' . (\is_string($result['cancel_reason'] ?? null) ? $result['cancel_reason'] : 'no reason given') . '.');
        }
        $events = [];
        foreach (\is_array($result['events'] ?? null) ? $result['events'] : [] as $event) {
            if (\is_array($event) && \is_array($event['kv'] ?? null)) {
                $events[] = new WatchEvent(($event['type'] ?? 'PUT') === 'DELETE', EtcdClient::kv($event['kv']));
            }
        }
        if ($events !== []) {
            $last = $events[\count($events) - 1]->kv->modRevision;
            $this->revision = max($this->revision, $last);
            ($this->onEvents)($events, max($revision, $last));
        } elseif ($revision > $this->revision) {
            $this->revision = $revision; // progress: nothing changed up to here
        }
    }

    private function end(\Throwable $why): void
    {
        if ($this->ended) {
            return;
        }
        $this->ended = true;
        $this->body?->close();
        $this->body = null;
        ($this->onEnd)($why);
    }
}
