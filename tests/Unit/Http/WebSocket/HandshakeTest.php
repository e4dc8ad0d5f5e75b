<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\Handshake;
use Nexus\Http\WebSocket\WebSocketOptions;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class HandshakeTest extends TestCase
{
    private const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

    public function testAcceptKeyIsTheOneFromRfc6455(): void
    {
        self::assertSame('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=', Handshake::acceptKey(self::KEY));
    }

    public function testAcceptsAValidHandshake(): void
    {
        $result = (new Handshake())->negotiate(self::request());

        self::assertTrue($result->isAccepted());
        self::assertSame(101, $result->response->status);
        self::assertSame('websocket', $result->response->header('Upgrade'));
        self::assertSame('Upgrade', $result->response->header('Connection'));
        self::assertSame('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=', $result->response->header('Sec-WebSocket-Accept'));
        self::assertNull($result->response->header('Sec-WebSocket-Protocol'));
        self::assertNull($result->response->header('Sec-WebSocket-Extensions'));
        self::assertNull($result->subprotocol);
        self::assertNull($result->deflate);
    }

    public function testHeaderTokensAreCaseInsensitiveAndMayBeLists(): void
    {
        $result = (new Handshake())->negotiate(self::request([
            'upgrade' => ['WebSocket'],
            'connection' => ['keep-alive, Upgrade'],
        ]));

        self::assertTrue($result->isAccepted());
    }

    /**
     * @return iterable<string, array{array<string, list<string>|null>, int, string, string}>
     */
    public static function rejections(): iterable
    {
        yield 'plain GET' => [['upgrade' => null, 'connection' => null, 'sec-websocket-key' => null, 'sec-websocket-version' => null], 426, 'WebSocket endpoint', 'GET'];
        yield 'upgrade to something else' => [['upgrade' => ['h2c']], 426, 'WebSocket endpoint', 'GET'];
        yield 'POST' => [[], 405, 'GET request', 'POST'];
        yield 'no Connection: upgrade' => [['connection' => ['keep-alive']], 400, 'Connection: Upgrade', 'GET'];
        yield 'no Host' => [['host' => null], 400, 'Host', 'GET'];
        yield 'no key' => [['sec-websocket-key' => null], 400, 'Sec-WebSocket-Key', 'GET'];
        yield 'key of 15 bytes' => [['sec-websocket-key' => [base64_encode('123456789012345')]], 400, 'Sec-WebSocket-Key', 'GET'];
        yield 'key of 17 bytes' => [['sec-websocket-key' => [base64_encode('12345678901234567')]], 400, 'Sec-WebSocket-Key', 'GET'];
        yield 'key not base64' => [['sec-websocket-key' => ['!!!!!!!!!!!!!!!!!!!!!!==']], 400, 'Sec-WebSocket-Key', 'GET'];
        yield 'key twice' => [['sec-websocket-key' => [self::KEY, self::KEY]], 400, 'Sec-WebSocket-Key', 'GET'];
        yield 'no version' => [['sec-websocket-version' => null], 426, 'version 13', 'GET'];
        yield 'version 8' => [['sec-websocket-version' => ['8']], 426, 'version 13', 'GET'];
        yield 'two versions' => [['sec-websocket-version' => ['13', '8']], 426, 'version 13', 'GET'];
        yield 'bad subprotocol list' => [['sec-websocket-protocol' => ['chat, ']], 400, 'Sec-WebSocket-Protocol', 'GET'];
        yield 'malformed extensions' => [['sec-websocket-extensions' => ['permessage-deflate; =15']], 400, 'Sec-WebSocket-Extensions', 'GET'];
        yield 'unclosed quoted extension value' => [['sec-websocket-extensions' => ['permessage-deflate; client_max_window_bits="10']], 400, 'Sec-WebSocket-Extensions', 'GET'];
    }

    /**
     * @param array<string, list<string>|null> $headers
     */
    #[DataProvider('rejections')]
    public function testRejections(array $headers, int $status, string $hint, string $method): void
    {
        $result = (new Handshake())->negotiate(self::request($headers, $method));

        self::assertFalse($result->isAccepted());
        self::assertSame($status, $result->response->status);
        self::assertStringContainsString($hint, $result->response->body);
        if ($status === 426) {
            self::assertSame('websocket', $result->response->header('Upgrade'), '426 always names the protocol to upgrade to');
        }
        if ($status === 405) {
            self::assertSame('GET', $result->response->header('Allow'));
        }
    }

    public function testWrongVersionNamesTheVersionSpoken(): void
    {
        $result = (new Handshake())->negotiate(self::request(['sec-websocket-version' => ['8']]));
        self::assertSame('13', $result->response->header('Sec-WebSocket-Version'));

        $plain = (new Handshake())->negotiate(self::request(['upgrade' => null]));
        self::assertNull($plain->response->header('Sec-WebSocket-Version'), 'a plain GET is not told about versions');
    }

    public function testHttp10IsRejected(): void
    {
        $result = (new Handshake())->negotiate(self::request([], 'GET', '1.0'));
        self::assertSame(400, $result->response->status);
    }

    public function testHandshakeWithABodyIsRejected(): void
    {
        $request = new Request('GET', '/', '/', '', '1.1', self::headers([]), 'surprise');
        self::assertSame(400, (new Handshake())->negotiate($request)->response->status);
    }

    public function testOriginAllowlist(): void
    {
        $handshake = new Handshake(new WebSocketOptions(allowedOrigins: ['https://app.example.com', 'http://localhost:8080']));

        self::assertTrue($handshake->negotiate(self::request(['origin' => ['https://app.example.com']]))->isAccepted());
        self::assertTrue($handshake->negotiate(self::request(['origin' => ['HTTP://LOCALHOST:8080']]))->isAccepted());
        self::assertTrue($handshake->negotiate(self::request())->isAccepted(), 'no Origin: not a browser');
        $denied = $handshake->negotiate(self::request(['origin' => ['https://app.example.com.evil.net']]));
        self::assertSame(403, $denied->response->status);
        self::assertStringContainsString('allowedOrigins', $denied->response->body);
        self::assertSame(403, $handshake->negotiate(self::request(['origin' => ['null']]))->response->status);
        self::assertTrue((new Handshake())->negotiate(self::request(['origin' => ['https://anywhere']]))->isAccepted(), 'no allowlist: any origin');
    }

    public function testSubprotocolIsTheServersFirstChoiceAmongTheOffered(): void
    {
        $handshake = new Handshake(new WebSocketOptions(subprotocols: ['v3.chat', 'v2.chat']));

        $both = $handshake->negotiate(self::request(['sec-websocket-protocol' => ['v1.chat, v2.chat', 'v3.chat']]));
        self::assertSame('v3.chat', $both->subprotocol);
        self::assertSame('v3.chat', $both->response->header('Sec-WebSocket-Protocol'));

        $none = $handshake->negotiate(self::request(['sec-websocket-protocol' => ['v1.chat']]));
        self::assertTrue($none->isAccepted(), 'no common subprotocol: accepted without one, the client decides');
        self::assertNull($none->subprotocol);
        self::assertNull($none->response->header('Sec-WebSocket-Protocol'));
    }

    public function testPermessageDeflateIsNegotiatedWhenOffered(): void
    {
        $result = (new Handshake())->negotiate(self::request(['sec-websocket-extensions' => ['x-webkit-deflate-frame', 'permessage-deflate; client_max_window_bits']]));

        self::assertNotNull($result->deflate);
        self::assertSame('permessage-deflate', $result->response->header('Sec-WebSocket-Extensions'));
    }

    public function testPermessageDeflateIsNotNegotiatedWhenTurnedOff(): void
    {
        $result = (new Handshake(new WebSocketOptions(deflate: null)))->negotiate(self::request(['sec-websocket-extensions' => ['permessage-deflate']]));

        self::assertTrue($result->isAccepted());
        self::assertNull($result->deflate);
        self::assertNull($result->response->header('Sec-WebSocket-Extensions'));
    }

    public function testServerOptionsShapeTheAgreement(): void
    {
        $handshake = new Handshake(new WebSocketOptions(deflate: new DeflateOptions(windowBits: 12, serverNoContextTakeover: true, clientNoContextTakeover: true)));
        $result = $handshake->negotiate(self::request(['sec-websocket-extensions' => ['permessage-deflate']]));

        self::assertSame('permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=12', $result->response->header('Sec-WebSocket-Extensions'));
        self::assertSame(12, $result->deflate?->serverMaxWindowBits);
    }

    public function testSerializeWrites101WithConnectionUpgrade(): void
    {
        $result = (new Handshake(new WebSocketOptions(subprotocols: ['chat'])))->negotiate(self::request(['sec-websocket-protocol' => ['chat']]));
        $withCookie = $result->response->withHeader('Set-Cookie', ['a=1', 'b=2']);

        self::assertSame(
            "HTTP/1.1 101 Switching Protocols\r\n"
            . "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
            . "Sec-WebSocket-Protocol: chat\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n",
            Handshake::serialize($withCookie),
        );
    }

    public function testSerializeRefusesOtherStatuses(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Handshake::serialize(Response::text('no', 400));
    }

    public function testIsUpgradeRequest(): void
    {
        self::assertTrue(Handshake::isUpgradeRequest(self::request()));
        self::assertFalse(Handshake::isUpgradeRequest(self::request(['upgrade' => null])));
    }

    /**
     * @param array<string, list<string>|null> $override
     */
    private static function request(array $override = [], string $method = 'GET', string $version = '1.1'): Request
    {
        return new Request($method, '/chat', '/chat', '', $version, self::headers($override));
    }

    /**
     * @param array<string, list<string>|null> $override
     *
     * @return array<string, list<string>>
     */
    private static function headers(array $override): array
    {
        $headers = [
            'host' => ['example.com'],
            'upgrade' => ['websocket'],
            'connection' => ['Upgrade'],
            'sec-websocket-key' => [self::KEY],
            'sec-websocket-version' => ['13'],
        ];
        foreach ($override as $name => $value) {
            if ($value === null) {
                unset($headers[$name]);
            } else {
                $headers[$name] = $value;
            }
        }

        return $headers;
    }
}
