<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Status;
use Nexus\Http\WebSocket\Exception\HandshakeException;

/**
 * The server's side of the opening handshake (RFC 6455 §4.2): a pure function from a parsed
 * Request to the response. It does no I/O and keeps no state, so one instance serves a route.
 *
 * - not GET: 405 with Allow: GET.
 * - no "Upgrade: websocket" (a plain GET on a WebSocket route): 426 with Upgrade: websocket.
 * - not HTTP/1.1, no "upgrade" token in Connection, no Host, a body, a Sec-WebSocket-Key that is
 *   not the base64 of 16 bytes (or is repeated), a malformed Sec-WebSocket-Protocol or
 *   Sec-WebSocket-Extensions: 400.
 * - Sec-WebSocket-Version missing or not 13: 426 with Sec-WebSocket-Version: 13.
 * - an Origin not in WebSocketOptions::$allowedOrigins: 403.
 * - otherwise 101 with Sec-WebSocket-Accept, the chosen subprotocol (if the client offered one
 *   this endpoint speaks) and the permessage-deflate agreement (if the client offered one that
 *   can be accepted; an unknown extension is ignored).
 *
 * Every error response has a text body saying what to change.
 */
final class Handshake
{
    /** RFC 6455 §1.3: appended to the key before hashing. */
    public const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
    /** tchar of RFC 9110 §5.6.2. */
    public const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    public const VERSION = '13';
    private const BASE64_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

    /** @var array<string, true>|null lower-cased allowed origins, null for any */
    private readonly ?array $origins;

    public function __construct(private readonly WebSocketOptions $options = new WebSocketOptions())
    {
        if ($options->allowedOrigins === null) {
            $this->origins = null;
        } else {
            $origins = [];
            foreach ($options->allowedOrigins as $origin) {
                $origins[strtolower($origin)] = true;
            }
            $this->origins = $origins;
        }
    }

    public function options(): WebSocketOptions
    {
        return $this->options;
    }

    /**
     * Whether $request asks to upgrade to WebSocket ("Upgrade: websocket"), valid or not.
     */
    public static function isUpgradeRequest(Request $request): bool
    {
        $upgrade = $request->header('upgrade');

        return $upgrade !== null && self::hasToken($upgrade, 'websocket');
    }

    public function negotiate(Request $request): HandshakeResult
    {
        try {
            return $this->accept($request);
        } catch (HandshakeException $e) {
            $headers = [];
            if ($e->status === 405) {
                $headers['Allow'] = 'GET';
            } elseif ($e->status === 426) {
                $headers['Upgrade'] = 'websocket';
                if (self::isUpgradeRequest($request)) {
                    $headers['Sec-WebSocket-Version'] = self::VERSION;
                }
            }

            return new HandshakeResult(Response::text($e->getMessage() . "\n", $e->status, $headers));
        }
    }

    /**
     * The Sec-WebSocket-Accept value for a Sec-WebSocket-Key.
     */
    public static function acceptKey(string $key): string
    {
        return base64_encode(sha1($key . self::GUID, true));
    }

    /**
     * The bytes of a 101 response: its status line and header fields as they are (Connection:
     * Upgrade included, unlike ResponseSerializer, which owns Connection for HTTP responses),
     * no body.
     */
    public static function serialize(Response $response): string
    {
        if ($response->status !== 101) {
            throw new \InvalidArgumentException("Handshake::serialize() writes the 101 that switches to WebSocket; a {$response->status} response goes through ResponseSerializer.");
        }
        $out = 'HTTP/1.1 101 ' . Status::reason(101) . "\r\n";
        foreach ($response->headers as $name => $value) {
            $lower = strtolower((string) $name);
            if ($lower === 'content-length' || $lower === 'transfer-encoding') {
                continue;
            }
            foreach (\is_array($value) ? $value : [$value] as $item) {
                $out .= $name . ': ' . $item . "\r\n";
            }
        }

        return $out . "\r\n";
    }

    private function accept(Request $request): HandshakeResult
    {
        if ($request->method() !== 'GET') {
            throw new HandshakeException(405, "A WebSocket handshake is a GET request, not {$request->method()}.");
        }
        if (!self::isUpgradeRequest($request)) {
            throw new HandshakeException(426, 'This is a WebSocket endpoint: connect with a WebSocket client (send "Upgrade: websocket", "Connection: Upgrade", Sec-WebSocket-Key and "Sec-WebSocket-Version: 13").');
        }
        if ($request->protocolVersion() !== '1.1') {
            throw new HandshakeException(400, "A WebSocket handshake needs HTTP/1.1, not HTTP/{$request->protocolVersion()}.");
        }
        $connection = $request->header('connection');
        if ($connection === null || !self::hasToken($connection, 'upgrade')) {
            throw new HandshakeException(400, 'A WebSocket handshake needs "Connection: Upgrade" beside "Upgrade: websocket".');
        }
        if (!$request->hasHeader('host')) {
            throw new HandshakeException(400, 'A WebSocket handshake needs a Host header.');
        }
        if ($request->body() !== '' || $request->hasHeader('transfer-encoding')) {
            throw new HandshakeException(400, 'A WebSocket handshake has no body: send the GET without one.');
        }
        $headers = $request->headers();
        $version = $headers['sec-websocket-version'] ?? [];
        if (\count($version) !== 1 || trim($version[0]) !== self::VERSION) {
            throw new HandshakeException(426, 'This server speaks WebSocket version 13 only: send "Sec-WebSocket-Version: 13".');
        }
        $keys = $headers['sec-websocket-key'] ?? [];
        $key = \count($keys) === 1 ? trim($keys[0]) : '';
        if (!self::isValidKey($key)) {
            throw new HandshakeException(400, 'Sec-WebSocket-Key must appear once and be the base64 encoding of 16 random bytes (24 characters ending in "==").');
        }
        if ($this->origins !== null) {
            $origin = $request->header('origin');
            if ($origin !== null && !isset($this->origins[strtolower(trim($origin))])) {
                throw new HandshakeException(403, "The origin {$origin} may not open WebSocket connections here; add it to WebSocketOptions::\$allowedOrigins if it should.");
            }
        }
        $subprotocol = $this->chooseSubprotocol($request->header('sec-websocket-protocol'));
        $deflate = null;
        $extensions = $request->header('sec-websocket-extensions');
        if ($extensions !== null && $this->options->deflate !== null) {
            $deflate = PerMessageDeflate::negotiate(ExtensionOffer::parse($extensions), $this->options->deflate);
        } elseif ($extensions !== null) {
            ExtensionOffer::parse($extensions); // still reject a malformed field
        }
        $responseHeaders = [
            'Upgrade' => 'websocket',
            'Connection' => 'Upgrade',
            'Sec-WebSocket-Accept' => self::acceptKey($key),
        ];
        if ($subprotocol !== null) {
            $responseHeaders['Sec-WebSocket-Protocol'] = $subprotocol;
        }
        if ($deflate !== null) {
            $responseHeaders['Sec-WebSocket-Extensions'] = $deflate->response;
        }

        return new HandshakeResult(new Response(101, $responseHeaders), $subprotocol, $deflate);
    }

    private function chooseSubprotocol(?string $field): ?string
    {
        if ($field === null) {
            return null;
        }
        $offered = [];
        foreach (explode(',', $field) as $item) {
            $protocol = trim($item, " \t");
            if ($protocol === '' || strspn($protocol, self::TOKEN_CHARS) !== \strlen($protocol)) {
                throw new HandshakeException(400, "Sec-WebSocket-Protocol must be a comma-separated list of tokens, got \"{$field}\".");
            }
            $offered[$protocol] = true;
        }
        foreach ($this->options->subprotocols as $protocol) {
            if (isset($offered[$protocol])) {
                return $protocol;
            }
        }

        return null;
    }

    private static function isValidKey(string $key): bool
    {
        return \strlen($key) === 24
            && strspn($key, self::BASE64_CHARS, 0, 22) === 22
            && substr($key, 22) === '=='
            && \strlen((string) base64_decode($key, true)) === 16;
    }

    private static function hasToken(string $field, string $token): bool
    {
        foreach (explode(',', $field) as $item) {
            if (strcasecmp(trim($item, " \t"), $token) === 0) {
                return true;
            }
        }

        return false;
    }
}
