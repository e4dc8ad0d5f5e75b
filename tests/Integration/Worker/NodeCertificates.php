<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

use Nexus\Tests\Support\OpenSsl;

/**
 * Certificates for TLS links between nodes, made with the openssl CLI in a temp directory once
 * per test process: a cluster CA and a node certificate it signed (for IP 127.0.0.1 and the name
 * nexus-node), and a rogue CA with a node certificate of its own (same names, wrong signer); and
 * a certificate of the cluster CA fit only for serverAuth (not for the dialling end of a link).
 */
final class NodeCertificates
{
    private static ?self $instance = null;

    private function __construct(
        public readonly string $dir,
        public readonly string $caFile,
        public readonly string $nodeCert,
        public readonly string $nodeKey,
        public readonly string $rogueCert,
        public readonly string $rogueKey,
        public readonly string $serverOnlyCert,
        public readonly string $serverOnlyKey,
    ) {}

    public static function get(): self
    {
        if (self::$instance !== null && is_file(self::$instance->caFile)) {
            return self::$instance;
        }
        $dir = OpenSsl::directory('nexus-node-certs');
        file_put_contents("{$dir}/node.ext", "subjectAltName=IP:127.0.0.1,DNS:nexus-node\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n");
        foreach (['ca' => 'node', 'rogue-ca' => 'rogue'] as $ca => $node) {
            OpenSsl::run($dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', "{$ca}.key", '-out', "{$ca}.pem", '-days', '2', '-subj', "/CN={$ca}"]);
            OpenSsl::run($dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', "{$node}.key", '-out', "{$node}.csr", '-subj', '/CN=nexus-node']);
            OpenSsl::run($dir, ['x509', '-req', '-in', "{$node}.csr", '-CA', "{$ca}.pem", '-CAkey', "{$ca}.key", '-CAcreateserial', '-out', "{$node}.pem", '-days', '2', '-extfile', 'node.ext']);
        }

        file_put_contents("{$dir}/server-only.ext", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
        OpenSsl::run($dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server-only.key', '-out', 'server-only.csr', '-subj', '/CN=nexus-node']);
        OpenSsl::run($dir, ['x509', '-req', '-in', 'server-only.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server-only.pem', '-days', '2', '-extfile', 'server-only.ext']);

        return self::$instance = new self($dir, "{$dir}/ca.pem", "{$dir}/node.pem", "{$dir}/node.key", "{$dir}/rogue.pem", "{$dir}/rogue.key", "{$dir}/server-only.pem", "{$dir}/server-only.key");
    }
}
