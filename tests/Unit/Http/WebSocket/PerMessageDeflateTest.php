<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\Exception\HandshakeException;
use Nexus\Http\WebSocket\ExtensionOffer;
use Nexus\Http\WebSocket\PerMessageDeflate;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class PerMessageDeflateTest extends TestCase
{
    public function testParsesExtensionsWithParametersAndQuotedValues(): void
    {
        $offers = ExtensionOffer::parse('permessage-deflate; client_max_window_bits; server_max_window_bits="10" , X-Foo;a=1;b ,permessage-deflate');

        self::assertEquals([
            new ExtensionOffer('permessage-deflate', [['client_max_window_bits', null], ['server_max_window_bits', '10']]),
            new ExtensionOffer('x-foo', [['a', '1'], ['b', null]]),
            new ExtensionOffer('permessage-deflate', []),
        ], $offers);
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function malformed(): iterable
    {
        yield 'empty' => [''];
        yield 'only commas' => [', ,'];
        yield 'parameter without a name' => ['permessage-deflate; =1'];
        yield 'garbage after a parameter' => ['permessage-deflate; a=1 b'];
        yield 'unclosed quote' => ['permessage-deflate; a="1'];
        yield 'quoted value not a token' => ['permessage-deflate; a="x y"'];
        yield 'name is not a token' => ['perm@ssage'];
    }

    #[DataProvider('malformed')]
    public function testRejectsMalformedFields(string $field): void
    {
        $this->expectException(HandshakeException::class);
        ExtensionOffer::parse($field);
    }

    /**
     * @return iterable<string, array{string, ?string}>
     */
    public static function offers(): iterable
    {
        yield 'bare' => ['permessage-deflate', 'permessage-deflate'];
        yield 'client window without value' => ['permessage-deflate; client_max_window_bits', 'permessage-deflate'];
        yield 'client window with value' => ['permessage-deflate; client_max_window_bits=10', 'permessage-deflate'];
        yield 'server no context takeover' => ['permessage-deflate; server_no_context_takeover', 'permessage-deflate; server_no_context_takeover'];
        yield 'client no context takeover' => ['permessage-deflate; client_no_context_takeover', 'permessage-deflate; client_no_context_takeover'];
        yield 'server window' => ['permessage-deflate; server_max_window_bits=11', 'permessage-deflate; server_max_window_bits=11'];
        yield 'server window of 8 declined' => ['permessage-deflate; server_max_window_bits=8', null];
        yield 'server window of 8 then a plain offer' => ['permessage-deflate; server_max_window_bits=8, permessage-deflate', 'permessage-deflate'];
        yield 'server window without value' => ['permessage-deflate; server_max_window_bits', null];
        yield 'window of 16' => ['permessage-deflate; client_max_window_bits=16', null];
        yield 'window with a leading zero' => ['permessage-deflate; server_max_window_bits=09', null];
        yield 'unknown parameter' => ['permessage-deflate; mystery', null];
        yield 'repeated parameter' => ['permessage-deflate; server_no_context_takeover; server_no_context_takeover', null];
        yield 'value on a flag' => ['permessage-deflate; client_no_context_takeover=1', null];
        yield 'other extensions only' => ['x-webkit-deflate-frame', null];
    }

    #[DataProvider('offers')]
    public function testNegotiation(string $field, ?string $response): void
    {
        $agreed = PerMessageDeflate::negotiate(ExtensionOffer::parse($field), new DeflateOptions());

        self::assertSame($response, $agreed?->response);
    }

    public function testAgreedParameters(): void
    {
        $agreed = PerMessageDeflate::negotiate(
            ExtensionOffer::parse('permessage-deflate; server_max_window_bits=13; client_max_window_bits=9; server_no_context_takeover'),
            new DeflateOptions(windowBits: 14),
        );

        self::assertNotNull($agreed);
        self::assertSame(13, $agreed->serverMaxWindowBits, 'the smaller of the offer and the option');
        self::assertSame(9, $agreed->clientMaxWindowBits);
        self::assertTrue($agreed->serverNoContextTakeover);
        self::assertFalse($agreed->clientNoContextTakeover);
    }
}
