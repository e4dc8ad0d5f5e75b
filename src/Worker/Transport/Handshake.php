<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

/**
 * Mutual proof that both ends of a link know the shared secret, without sending it: a
 * challenge-response over fresh nonces from both sides.
 *
 *     client -> server   Hello: the client's identity and a fresh nonce (32 random bytes)
 *     server -> client   Challenge: the server's identity, its own fresh nonce and
 *                        serverProof = HMAC-SHA256(secret, "server", both nonces, both identities)
 *     client -> server   Proof: clientProof = HMAC-SHA256(secret, "client", both nonces, both identities)
 *
 * Each side checks the other's proof with a constant-time comparison before it trusts anything
 * the other sends. A recorded exchange replayed later fails, because the replaying side cannot
 * answer the other's new nonce; a proof is bound to the identities, so it cannot be moved to
 * another link. Nothing here is about workers: a cluster link between machines uses it with
 * identities such as "node-3/worker-1".
 */
final class Handshake
{
    public const NONCE_BYTES = 32;

    public function __construct(#[\SensitiveParameter] private readonly string $secret)
    {
        if (\strlen($secret) < 16) {
            throw new \InvalidArgumentException('A link secret needs at least 16 bytes; use random_bytes(32).');
        }
    }

    public static function nonce(): string
    {
        return random_bytes(self::NONCE_BYTES);
    }

    public function serverProof(string $clientNonce, string $serverNonce, string $client, string $server): string
    {
        return $this->mac('server', $clientNonce, $serverNonce, $client, $server);
    }

    public function clientProof(string $clientNonce, string $serverNonce, string $client, string $server): string
    {
        return $this->mac('client', $clientNonce, $serverNonce, $client, $server);
    }

    /**
     * Compares a proof received with the one expected, in constant time.
     */
    public static function matches(string $expected, string $received): bool
    {
        return hash_equals($expected, $received);
    }

    private function mac(string $role, string $clientNonce, string $serverNonce, string $client, string $server): string
    {
        if (\strlen($clientNonce) !== self::NONCE_BYTES || \strlen($serverNonce) !== self::NONCE_BYTES) {
            throw new \InvalidArgumentException('Both nonces must be ' . self::NONCE_BYTES . ' bytes from Handshake::nonce().');
        }

        return hash_hmac('sha256', implode("\0", ['nexus-link-1', $role, $clientNonce, $serverNonce, $client, $server]), $this->secret, true);
    }
}
