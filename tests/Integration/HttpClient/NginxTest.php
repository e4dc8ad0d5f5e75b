<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\Exception\BodyTooLargeException;
use Nexus\HttpClient\Exception\TlsException;
use Nexus\HttpClient\Exception\TooManyRedirectsException;
use Nexus\HttpClient\RequestOptions;
use Nexus\HttpClient\StaticResolver;
use Nexus\HttpClient\SystemResolver;
use Nexus\HttpClient\TlsOptions;
use Nexus\Runtime\Future;
use PHPUnit\Framework\Attributes\AfterClass;
use PHPUnit\Framework\Attributes\BeforeClass;

/**
 * The client against a real nginx started for this class: plain and TLS (on certificates made
 * for the test), gzip, redirects, and connections the server closes.
 */
final class NginxTest extends HttpClientTestCase
{
    private static ?NginxServer $nginx = null;

    #[BeforeClass]
    public static function startNginx(): void
    {
        self::$nginx = NginxServer::start();
    }

    #[AfterClass]
    public static function stopNginx(): void
    {
        self::$nginx?->stop();
        self::$nginx = null;
    }

    public function testStaticFilesOverOneKeptAliveConnection(): void
    {
        $nginx = self::nginx();
        $small = $this->client->get($nginx->url(NginxServer::SMALL))->await(10.0);
        self::assertSame(200, $small->status());
        self::assertSame("hello from nginx\n", $small->body());
        self::assertStringStartsWith('nginx', (string) $small->header('server'));

        $binary = $this->client->get($nginx->url(NginxServer::BINARY))->await(10.0);
        self::assertSame($nginx->file(NginxServer::BINARY), $binary->body());
        self::assertSame((string) (1 << 20), $binary->header('content-length'));

        $missing = $this->client->get($nginx->url('/missing'))->await(10.0);
        self::assertSame(404, $missing->status());
        self::assertSame(1, $this->client->connectionCount());
    }

    public function testIdleKeptAliveConnectionsDoNotKeepTheLoopRunning(): void
    {
        $nginx = self::nginx();
        $body = null;
        $this->client->get($nginx->url(NginxServer::SMALL))->onSettle(static function (?\Throwable $error, mixed $response) use (&$body): void {
            $body = $response instanceof \Nexus\HttpClient\ClientResponse ? $response->body() : $error?->getMessage();
        });
        $this->loop->run(); // returns once the response is in, with its connection idle in the pool
        self::assertSame("hello from nginx\n", $body);
        self::assertSame(1, $this->client->idleConnectionCount($nginx->url()));
    }

    public function testManyConcurrentRequestsShareThePool(): void
    {
        $nginx = self::nginx();
        $client = $this->client = $this->client(new ClientOptions(maxConnectionsPerOrigin: 8));
        $futures = [];
        for ($i = 0; $i < 200; ++$i) {
            $futures[] = $client->get($nginx->url(NginxServer::SMALL));
        }
        foreach (Future::all($futures)->await(20.0) as $response) {
            self::assertSame("hello from nginx\n", $response->body());
        }
        self::assertLessThanOrEqual(8, $client->connectionCount());
        self::assertSame(0, $client->inFlight());
    }

    public function testGzipIsDecodedAndCanBeTurnedOff(): void
    {
        $nginx = self::nginx();
        $decoded = $this->client->get($nginx->url(NginxServer::TEXT))->await(10.0);
        self::assertSame($nginx->file(NginxServer::TEXT), $decoded->body());
        self::assertNull($decoded->header('content-encoding'), 'the header described the encoded bytes');

        $raw = $this->client->get($nginx->url(NginxServer::TEXT), [], new RequestOptions(decompress: false))->await(10.0);
        self::assertSame($nginx->file(NginxServer::TEXT), $raw->body(), 'nothing asked for gzip, none came');

        $manual = $this->client->get($nginx->url(NginxServer::TEXT), ['Accept-Encoding' => 'gzip'], new RequestOptions(decompress: false))->await(10.0);
        self::assertSame('gzip', $manual->header('content-encoding'));
        self::assertSame($nginx->file(NginxServer::TEXT), gzdecode($manual->body()));

        $streamed = $this->client->get($nginx->url(NginxServer::TEXT), [], new RequestOptions(stream: true))->await(10.0);
        $pieces = iterator_to_array($streamed->stream(), false);
        self::assertGreaterThan(1, \count($pieces), 'decoded as it arrived');
        self::assertSame($nginx->file(NginxServer::TEXT), implode('', $pieces));
    }

    public function testADecodedBodyOverTheCapFails(): void
    {
        $nginx = self::nginx();
        $client = $this->client = $this->client(new ClientOptions(maxDecodedSize: 100_000));
        $error = $this->failureOf($client->get($nginx->url(NginxServer::TEXT)));
        self::assertInstanceOf(BodyTooLargeException::class, $error);
        self::assertSame(0, $client->connectionCount());
        self::assertSame("hello from nginx\n", $client->get($nginx->url(NginxServer::SMALL))->await(10.0)->body());
    }

    public function testRedirectsAreFollowedOnlyWhenAsked(): void
    {
        $nginx = self::nginx();
        $plain = $this->client->get($nginx->url('/redirect'))->await(10.0);
        self::assertSame(302, $plain->status());
        self::assertSame($nginx->url(NginxServer::SMALL), $plain->header('location'));

        $followed = $this->client->get($nginx->url('/redirect'), [], new RequestOptions(maxRedirects: 3))->await(10.0);
        self::assertSame(200, $followed->status());
        self::assertSame("hello from nginx\n", $followed->body());
        self::assertSame($nginx->url(NginxServer::SMALL), $followed->url());

        $seeOther = $this->client->post($nginx->url('/see-other'), 'data', ['Authorization' => 'Bearer t'], new RequestOptions(maxRedirects: 3))->await(10.0);
        self::assertStringStartsWith('method=GET authorization=[Bearer t]', $seeOther->body(), '303: GET on the same origin keeps the credentials');

        $error = $this->failureOf($this->client->get($nginx->url('/loop'), [], new RequestOptions(maxRedirects: 4)));
        self::assertInstanceOf(TooManyRedirectsException::class, $error);
        self::assertStringContainsString('more than 4 times', $error->getMessage());
    }

    public function testCredentialsAreNotCarriedToAnotherOrigin(): void
    {
        $nginx = self::nginx();
        // /elsewhere sends a 307 to http://localhost:port: the same server under another origin.
        $response = $this->client->get($nginx->url('/elsewhere'), ['Authorization' => 'Bearer secret', 'Cookie' => 'session=1', 'X-Trace' => 'kept'], new RequestOptions(maxRedirects: 1))->await(10.0);
        self::assertSame(200, $response->status());
        self::assertSame("method=GET authorization=[] cookie=[] host=[localhost:{$nginx->port}]", $response->body());
    }

    public function testConnectionsTheServerClosesAreReplaced(): void
    {
        $nginx = self::nginx();
        // keepalive_requests 2: nginx answers every second request with Connection: close.
        $url = "http://127.0.0.1:{$nginx->shortKeepAlivePort}" . NginxServer::SMALL;
        $idleAfter = [];
        for ($i = 0; $i < 6; ++$i) {
            self::assertSame("hello from nginx\n", $this->client->get($url)->await(10.0)->body(), "request {$i}");
            $idleAfter[] = $this->client->idleConnectionCount($url);
        }
        self::assertSame([1, 0, 1, 0, 1, 0], $idleAfter, 'kept after the first answer of each connection, closed after the second');
    }

    public function testHttpsWithTheTestCa(): void
    {
        $nginx = self::nginx();
        $client = $this->client = $this->client(new ClientOptions(tls: new TlsOptions(caFile: TestCertificates::get()->caFile)));
        self::assertSame("hello from nginx\n", $client->get($nginx->tlsUrl(NginxServer::SMALL))->await(10.0)->body());
        self::assertSame("hello from nginx\n", $client->get($nginx->tlsUrl(NginxServer::SMALL, 'localhost'))->await(10.0)->body());
        self::assertSame($nginx->file(NginxServer::BINARY), $client->get($nginx->tlsUrl(NginxServer::BINARY))->await(10.0)->body());
        self::assertSame($nginx->file(NginxServer::TEXT), $client->get($nginx->tlsUrl(NginxServer::TEXT))->await(10.0)->body());
        self::assertSame(2, $client->connectionCount(), 'one per origin (127.0.0.1 and localhost), kept alive');

        $streamed = $client->get($nginx->tlsUrl(NginxServer::BINARY), [], new RequestOptions(stream: true))->await(10.0);
        self::assertSame($nginx->file(NginxServer::BINARY), $streamed->stream()->buffer());
    }

    public function testHttpsVerifiesThePeerByDefault(): void
    {
        $nginx = self::nginx();
        // The system store does not know the test CA.
        $error = $this->failureOf($this->client->get($nginx->tlsUrl(NginxServer::SMALL)));
        self::assertInstanceOf(TlsException::class, $error);
        self::assertStringContainsString('certificate verify failed', $error->getMessage());
        self::assertSame(0, $this->client->connectionCount());

        $insecure = $this->client(new ClientOptions(tls: new TlsOptions(verifyPeer: false)));
        self::assertSame("hello from nginx\n", $insecure->get($nginx->tlsUrl(NginxServer::SMALL))->await(10.0)->body());
        $insecure->close();
    }

    public function testTheCertificateMustNameTheHost(): void
    {
        $nginx = self::nginx();
        $client = $this->client = $this->client(new ClientOptions(
            tls: new TlsOptions(caFile: TestCertificates::get()->caFile, peerName: 'example.org'),
        ));
        $error = $this->failureOf($client->get($nginx->tlsUrl(NginxServer::SMALL)));
        self::assertInstanceOf(TlsException::class, $error);
        self::assertStringContainsString('example.org', $error->getMessage());
    }

    public function testSniPicksTheCertificateOfTheRequestedName(): void
    {
        $nginx = self::nginx();
        // other.test's certificate is served only to a client that names other.test in SNI; the
        // default one (127.0.0.1, localhost) would fail verification for that name.
        $client = $this->client = $this->client(new ClientOptions(
            tls: new TlsOptions(caFile: TestCertificates::get()->caFile),
            resolver: new StaticResolver($this->loop, ['other.test' => '127.0.0.1']),
        ));
        self::assertSame("hello from nginx\n", $client->get($nginx->tlsUrl(NginxServer::SMALL, 'other.test'))->await(10.0)->body());
    }

    public function testTheSystemResolverCachesAName(): void
    {
        $nginx = self::nginx();
        $resolver = new SystemResolver($this->loop, ttl: 60.0);
        $client = $this->client = $this->client(new ClientOptions(resolver: $resolver, maxConnectionsPerOrigin: 1));
        $client->get("http://localhost:{$nginx->shortKeepAlivePort}/small.txt")->await(10.0);
        $client->get("http://localhost:{$nginx->shortKeepAlivePort}/small.txt")->await(10.0);
        $client->get("http://localhost:{$nginx->shortKeepAlivePort}/small.txt")->await(10.0); // a new connection (keepalive_requests 2)
        self::assertSame(1, $resolver->lookups());
    }

    private static function nginx(): NginxServer
    {
        \assert(self::$nginx !== null);

        return self::$nginx;
    }
}
