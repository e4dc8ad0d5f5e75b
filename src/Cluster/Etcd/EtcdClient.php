<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

use Nexus\Cluster\Exception\EtcdException;
use Nexus\Cluster\Exception\EtcdUnavailableException;
use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\ClientResponse;
use Nexus\HttpClient\Exception\HttpClientException;
use Nexus\HttpClient\HttpClient;
use Nexus\HttpClient\RequestOptions;
use Nexus\Pool\Exception\PoolException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * etcd v3 through its JSON gateway (/v3/..., etcd 3.4), on the loop with the HTTP client: leases
 * (grant, keep-alive, revoke), keys (put, range over a prefix, create-if-absent, delete) and
 * watches (a streamed response, see EtcdWatch). Keys and values travel base64-encoded, 64-bit
 * numbers as strings; this class hides both.
 *
 * Every call is bounded by $timeout (a watch is not: it lives until closed, see EtcdWatch).
 * Failures are typed: EtcdUnavailableException when etcd cannot be reached or answers that it
 * cannot serve now (retry later), EtcdException when it refused the request.
 */
final class EtcdClient
{
    /** The largest answer read (a range over the cluster's prefix is far smaller). */
    private const MAX_BODY = 4 * 1024 * 1024;

    private readonly HttpClient $http;
    private readonly RequestOptions $unary;

    /**
     * @param string $endpoint http://HOST:PORT of an etcd member
     */
    public function __construct(
        public readonly Loop $loop,
        public readonly string $endpoint,
        public readonly float $timeout = 5.0,
    ) {
        if (preg_match('#^http://[^/\s]+$#', $endpoint) !== 1) {
            throw new \InvalidArgumentException("An etcd endpoint is http://HOST:PORT, such as http://127.0.0.1:2379; got '{$endpoint}'.");
        }
        $this->http = new HttpClient($loop, new ClientOptions(
            connectTimeout: min($timeout, 10.0),
            headTimeout: $timeout,
            idleTimeout: $timeout,
            totalTimeout: $timeout,
            maxConnectionsPerOrigin: 8,
            acquireTimeout: $timeout,
            maxWaiters: 1_000,
            maxBodySize: self::MAX_BODY,
            decompress: false,
            userAgent: 'Nexus-Cluster/1.0',
        ));
        $this->unary = new RequestOptions(totalTimeout: $timeout);
    }

    /**
     * A lease of $ttl seconds (etcd may grant a longer one: its minimum is about 2 s).
     *
     * @return Future<Lease>
     */
    public function grantLease(int $ttl): Future
    {
        return $this->call('/v3/lease/grant', ['TTL' => (string) $ttl], static fn(array $r): Lease => new Lease(self::int($r, 'ID'), self::int($r, 'TTL')));
    }

    /**
     * Renews a lease; resolves to the seconds it has left from now, 0 when etcd no longer knows
     * it (it expired or was revoked: its keys are gone).
     *
     * @return Future<int>
     */
    public function keepAlive(int $lease): Future
    {
        return $this->call('/v3/lease/keepalive', ['ID' => (string) $lease], static function (array $r): int {
            $result = $r['result'] ?? null;

            return \is_array($result) ? max(0, self::int($result, 'TTL')) : 0;
        });
    }

    /**
     * Revokes a lease: its keys are deleted at once. A lease etcd does not know counts as revoked.
     *
     * @return Future<null>
     */
    public function revoke(int $lease): Future
    {
        /** @var Deferred<null> $done */
        $done = new Deferred($this->loop);
        $this->call('/v3/lease/revoke', ['ID' => (string) $lease], static fn(): null => null)
            ->onSettle(static function (?\Throwable $error) use ($done): void {
                if ($error instanceof EtcdException && str_contains($error->getMessage(), 'lease not found')) {
                    $error = null;
                }
                $error === null ? $done->resolve(null) : $done->reject($error);
            });

        return $done->future();
    }

    /**
     * Puts $key (attached to $lease when given); resolves to the revision of the change.
     *
     * @return Future<int>
     */
    public function put(string $key, string $value, int $lease = 0): Future
    {
        $body = ['key' => base64_encode($key), 'value' => base64_encode($value)];
        if ($lease !== 0) {
            $body['lease'] = (string) $lease;
        }

        return $this->call('/v3/kv/put', $body, static fn(array $r): int => self::revisionOf($r));
    }

    /**
     * Every key that starts with $prefix, and the revision they were read at.
     *
     * @return Future<RangeResult>
     */
    public function range(string $prefix): Future
    {
        return $this->call(
            '/v3/kv/range',
            ['key' => base64_encode($prefix), 'range_end' => base64_encode(self::prefixEnd($prefix))],
            static fn(array $r): RangeResult => new RangeResult(self::revisionOf($r), self::kvs($r['kvs'] ?? [])),
        );
    }

    /**
     * Puts $key only if it does not exist; resolves to the key as stored: this value, or the one
     * another put first.
     *
     * @return Future<KeyValue>
     */
    public function createIfAbsent(string $key, string $value): Future
    {
        $encoded = base64_encode($key);

        return $this->call('/v3/kv/txn', [
            'compare' => [['key' => $encoded, 'target' => 'CREATE', 'result' => 'EQUAL', 'create_revision' => '0']],
            'success' => [['request_put' => ['key' => $encoded, 'value' => base64_encode($value)]]],
            'failure' => [['request_range' => ['key' => $encoded]]],
        ], static function (array $r) use ($key, $value): KeyValue {
            if (($r['succeeded'] ?? false) === true) {
                $revision = self::revisionOf($r);

                return new KeyValue($key, $value, $revision, $revision, 0);
            }
            $responses = $r['responses'] ?? [];
            $range = \is_array($responses) && \is_array($responses[0] ?? null) ? ($responses[0]['response_range'] ?? []) : [];
            $kvs = self::kvs(\is_array($range) ? ($range['kvs'] ?? []) : []);

            return $kvs[0] ?? throw new EtcdException("etcd said {$key} exists but did not return it.");
        });
    }

    /**
     * Deletes $key; resolves to the revision of the change.
     *
     * @return Future<int>
     */
    public function delete(string $key): Future
    {
        return $this->call('/v3/kv/deleterange', ['key' => base64_encode($key)], static fn(array $r): int => self::revisionOf($r));
    }

    /**
     * Watches every key under $prefix from $fromRevision on: $onEvents(events, revision) for each
     * batch of changes in revision order; $onEnd(error) once when the watch ends (etcd gone, the
     * revision compacted, close()). Start it from a RangeResult's revision + 1 to miss nothing.
     *
     * @param \Closure(list<WatchEvent>, int): void $onEvents
     * @param \Closure(\Throwable): void            $onEnd
     */
    public function watch(string $prefix, int $fromRevision, \Closure $onEvents, \Closure $onEnd): EtcdWatch
    {
        $body = json_encode(['create_request' => [
            'key' => base64_encode($prefix),
            'range_end' => base64_encode(self::prefixEnd($prefix)),
            'start_revision' => (string) $fromRevision,
            'progress_notify' => true,
        ]], \JSON_THROW_ON_ERROR);
        $response = $this->http->request('POST', $this->endpoint . '/v3/watch', ['Content-Type' => 'application/json'], $body, new RequestOptions(
            stream: true,
            headTimeout: $this->timeout,
            idleTimeout: \INF,
            totalTimeout: \INF,
        ));

        return new EtcdWatch($this->loop, $response, $onEvents, $onEnd);
    }

    public function close(): void
    {
        $this->http->close();
    }

    /**
     * @param array<string, mixed>          $body
     * @param \Closure(array<mixed>): T     $parse
     *
     * @return Future<T>
     *
     * @template T
     */
    private function call(string $path, array $body, \Closure $parse): Future
    {
        /** @var Deferred<T> $done */
        $done = new Deferred($this->loop);
        try {
            $request = $this->http->json('POST', $this->endpoint . $path, $body, [], $this->unary);
        } catch (\JsonException $e) {
            return Future::rejected($this->loop, new EtcdException("Could not encode the request to {$path}: {$e->getMessage()}", 0, $e));
        }
        $request->onSettle(function (?\Throwable $error, mixed $response) use ($done, $path, $parse): void {
            if ($error !== null || !$response instanceof ClientResponse) {
                $done->reject(self::unavailable($path, $error));

                return;
            }
            try {
                $done->resolve($parse(self::answer($path, $response)));
            } catch (EtcdException | EtcdUnavailableException $e) {
                $done->reject($e);
            }
        });

        return $done->future();
    }

    private static function unavailable(string $path, ?\Throwable $error): EtcdUnavailableException
    {
        $why = $error === null ? 'no response' : $error->getMessage();
        if ($error !== null && !$error instanceof HttpClientException && !$error instanceof PoolException) {
            $why = $error::class . ': ' . $why;
        }

        return new EtcdUnavailableException("etcd did not answer {$path}: {$why}", 0, $error);
    }

    /**
     * @return array<mixed>
     *
     * @throws EtcdException
     * @throws EtcdUnavailableException
     */
    private static function answer(string $path, ClientResponse $response): array
    {
        try {
            $json = json_decode($response->body(), true, 64, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new EtcdException("etcd answered {$path} with status {$response->status()} and no JSON: {$e->getMessage()}", 0, $e);
        }
        if (!\is_array($json)) {
            throw new EtcdException("etcd answered {$path} with status {$response->status()} and no JSON object.");
        }
        if ($response->status() !== 200 || isset($json['error'])) {
            $message = \is_string($json['message'] ?? null) ? $json['message'] : (\is_string($json['error'] ?? null) ? $json['error'] : 'no message');
            $code = \is_int($json['code'] ?? null) ? $json['code'] : 0;
            // gRPC codes 4 (deadline), 14 (unavailable): etcd cannot serve now (no leader, stopping).
            if ($response->status() >= 500 && \in_array($code, [4, 14], true)) {
                throw new EtcdUnavailableException("etcd cannot serve {$path} now: {$message}");
            }

            throw new EtcdException("etcd refused {$path} (status {$response->status()}): {$message}");
        }

        return $json;
    }

    /**
     * @param array<mixed> $response
     */
    private static function revisionOf(array $response): int
    {
        $header = $response['header'] ?? null;

        return \is_array($header) ? self::int($header, 'revision') : 0;
    }

    /**
     * @param array<mixed> $object
     */
    public static function int(array $object, string $field): int
    {
        $value = $object[$field] ?? 0;
        if (\is_int($value)) {
            return $value;
        }

        return \is_string($value) && preg_match('/^-?\d{1,19}$/', $value) === 1 ? (int) $value : 0;
    }

    /**
     * @return list<KeyValue>
     */
    public static function kvs(mixed $list): array
    {
        $kvs = [];
        foreach (\is_array($list) ? $list : [] as $kv) {
            if (\is_array($kv)) {
                $kvs[] = self::kv($kv);
            }
        }

        return $kvs;
    }

    /**
     * @param array<mixed> $kv
     */
    public static function kv(array $kv): KeyValue
    {
        $key = base64_decode(\is_string($kv['key'] ?? null) ? $kv['key'] : '', true);
        $value = base64_decode(\is_string($kv['value'] ?? null) ? $kv['value'] : '', true);

        return new KeyValue(
            \is_string($key) ? $key : '',
            \is_string($value) ? $value : '',
            self::int($kv, 'create_revision'),
            self::int($kv, 'mod_revision'),
            self::int($kv, 'lease'),
        );
    }

    /**
     * The end of the range of keys that start with $prefix: the prefix with its last byte raised.
     */
    public static function prefixEnd(string $prefix): string
    {
        for ($i = \strlen($prefix) - 1; $i >= 0; --$i) {
            if ($prefix[$i] !== "\xff") {
                return substr($prefix, 0, $i) . \chr(\ord($prefix[$i]) + 1);
            }
        }

        return "\0";
    }
}
