<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Cluster\ClusterOptions;
use Nexus\Worker\Exception\LinkTlsException;
use Nexus\Worker\Transport\LinkTls;
use PHPUnit\Framework\TestCase;

/**
 * The TLS files of the links between nodes are checked when a node starts, with a message that
 * says which file is wrong and how.
 */
final class LinkTlsTest extends TestCase
{
    public function testGoodFilesAreTakenAndCarriedByTheClusterOptions(): void
    {
        $certs = NodeCertificates::get();
        $tls = new LinkTls($certs->nodeCert, $certs->nodeKey, $certs->caFile, 'nexus-node');
        $options = new ClusterOptions('http://127.0.0.1:2379', 'a', tls: $tls);

        self::assertSame($tls, $options->tls);
        self::assertSame('nexus-node', $tls->clientOptions('10.0.0.5')['peer_name']);
        self::assertTrue($tls->clientOptions('10.0.0.5')['verify_peer']);
        self::assertSame($certs->nodeCert, $tls->clientOptions('10.0.0.5')['local_cert'], 'the dialling end shows its certificate');
        self::assertTrue($tls->serverOptions()['verify_peer'], "the listening end requires the dialler's");
        self::assertSame($certs->caFile, $tls->serverOptions()['cafile']);
        self::assertSame('10.0.0.5', (new LinkTls($certs->nodeCert, $certs->nodeKey, $certs->caFile))->clientOptions('10.0.0.5')['peer_name']);
        self::assertNull((new ClusterOptions('http://127.0.0.1:2379', 'a'))->tls);
    }

    /**
     * @return iterable<string, array{\Closure(NodeCertificates): LinkTls, string}>
     */
    public static function badFiles(): iterable
    {
        yield 'missing CA' => [static fn(NodeCertificates $c): LinkTls => new LinkTls($c->nodeCert, $c->nodeKey, $c->dir . '/none.pem'), 'The TLS CA file for the links between nodes, '];
        yield 'not PEM' => [static fn(NodeCertificates $c): LinkTls => new LinkTls($c->nodeCert, $c->dir . '/node.ext', $c->caFile), 'holds no PEM block'];
        yield 'key of another certificate' => [static fn(NodeCertificates $c): LinkTls => new LinkTls($c->nodeCert, $c->rogueKey, $c->caFile), 'does not belong to the certificate'];
        yield 'certificate only for serverAuth' => [static fn(NodeCertificates $c): LinkTls => new LinkTls($c->serverOnlyCert, $c->serverOnlyKey, $c->caFile), 'may not be used for clientAuth (it is presented to the nodes this one links to): make it with extendedKeyUsage=serverAuth,clientAuth'];
        yield 'key as certificate' => [static fn(NodeCertificates $c): LinkTls => new LinkTls($c->nodeKey, $c->nodeKey, $c->caFile), 'holds no certificate OpenSSL can read'];
    }

    /**
     * @param \Closure(NodeCertificates): LinkTls $make
     */
    #[\PHPUnit\Framework\Attributes\DataProvider('badFiles')]
    public function testBadFilesAreRefusedWithWhatToFix(\Closure $make, string $message): void
    {
        $this->expectException(LinkTlsException::class);
        $this->expectExceptionMessage($message);
        $make(NodeCertificates::get());
    }
}
