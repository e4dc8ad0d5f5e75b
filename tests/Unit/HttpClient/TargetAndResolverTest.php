<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\HttpClient;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\Exception\ConnectException;
use Nexus\HttpClient\Exception\InvalidOptionsException;
use Nexus\HttpClient\Internal\Target;
use Nexus\HttpClient\RequestOptions;
use Nexus\HttpClient\StaticResolver;
use Nexus\HttpClient\SystemResolver;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class TargetAndResolverTest extends TestCase
{
    public function testUrlsAreTakenApart(): void
    {
        $t = Target::of('https://Example.ORG/a/b?c=d#frag');
        self::assertTrue($t->tls);
        self::assertSame('example.org', $t->host);
        self::assertSame(443, $t->port);
        self::assertSame('https://example.org:443', $t->origin);
        self::assertSame('example.org', $t->hostHeader);
        self::assertSame('/a/b?c=d', $t->requestTarget);

        $v6 = Target::of('http://[::1]:8080');
        self::assertSame('::1', $v6->host);
        self::assertSame('[::1]:8080', $v6->hostHeader);
        self::assertSame('/', $v6->requestTarget);
    }

    public function testLocationsResolveAgainstTheUrl(): void
    {
        $t = Target::of('http://h:81/dir/page?q=1');
        self::assertSame('http://h:81/other', $t->resolve('/other')->url);
        self::assertSame('http://h:81/dir/sibling', $t->resolve('sibling')->url);
        self::assertSame('http://h:81/dir/page?x=2', $t->resolve('?x=2')->url);
        self::assertSame('https://elsewhere/', $t->resolve('https://elsewhere/')->url);
        self::assertSame('http://cdn.test/x', $t->resolve('//cdn.test/x')->url);
    }

    public function testTheSystemResolverCachesForItsTtlAndSkipsIpLiterals(): void
    {
        $clock = new VirtualClock();
        $loop = new Loop($clock);
        $asked = [];
        $resolver = new SystemResolver($loop, 10.0, 2, static function (string $host) use (&$asked): array|false {
            $asked[] = $host;

            return $host === 'nowhere.test' ? false : ['10.0.0.1'];
        });
        self::assertSame(['127.0.0.1'], $resolver->resolve('127.0.0.1')->await());
        self::assertSame(['::1'], $resolver->resolve('::1')->await());
        self::assertSame(['10.0.0.1'], $resolver->resolve('a.test')->await());
        self::assertSame(['10.0.0.1'], $resolver->resolve('A.test')->await());
        self::assertSame(['a.test'], $asked, 'cached, case-insensitively');
        $clock->advance(11.0);
        $loop->tick(false);
        $resolver->resolve('a.test')->await();
        self::assertSame(['a.test', 'a.test'], $asked, 'asked again after the TTL');
        $this->expectException(ConnectException::class);
        $resolver->resolve('nowhere.test')->await();
    }

    public function testTheStaticResolverNeverAsksTheSystem(): void
    {
        $loop = new Loop();
        $resolver = new StaticResolver($loop, ['svc' => ['127.0.0.2', '127.0.0.3']]);
        self::assertSame(['127.0.0.2', '127.0.0.3'], $resolver->resolve('SVC')->await());
        self::assertSame(['192.0.2.1'], $resolver->resolve('192.0.2.1')->await());
        $this->expectException(ConnectException::class);
        $resolver->resolve('other')->await();
    }

    public function testOptionsRejectValuesOutOfRange(): void
    {
        foreach ([
            static fn() => new ClientOptions(connectTimeout: 0.0),
            static fn() => new ClientOptions(acquireTimeout: \INF),
            static fn() => new ClientOptions(maxConnectionsPerOrigin: 0),
            static fn() => new ClientOptions(maxBodySize: 0),
            static fn() => new ClientOptions(userAgent: "x\r\nInjected: 1"),
            static fn() => new RequestOptions(totalTimeout: -1.0),
            static fn() => new RequestOptions(maxRedirects: -1),
        ] as $i => $make) {
            try {
                $make();
                self::fail("case {$i} was accepted");
            } catch (InvalidOptionsException) {
                self::addToAssertionCount(1);
            }
        }
        self::assertSame(\INF, (new ClientOptions(totalTimeout: \INF))->totalTimeout, 'INF turns a timeout off');
    }
}
