<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Tests\Support\OpenSsl;

/**
 * A throwaway certificate authority and two server certificates it signed, made with the openssl
 * CLI in a temp directory: one for 127.0.0.1 and localhost, one for other.test (to tell by the
 * certificate whether the client sent SNI). Made once per test process.
 */
final class TestCertificates
{
    private static ?self $instance = null;

    private function __construct(
        public readonly string $dir,
        public readonly string $caFile,
        public readonly string $localCert,
        public readonly string $localKey,
        public readonly string $otherCert,
        public readonly string $otherKey,
    ) {}

    public static function get(): self
    {
        if (self::$instance !== null && is_file(self::$instance->caFile)) {
            return self::$instance;
        }
        $dir = OpenSsl::directory('nexus-certs');
        OpenSsl::run($dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Nexus Test CA']);
        foreach (['local' => 'subjectAltName=IP:127.0.0.1,DNS:localhost', 'other' => 'subjectAltName=DNS:other.test'] as $name => $san) {
            file_put_contents("{$dir}/{$name}.ext", "{$san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
            OpenSsl::run($dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', "{$name}.key", '-out', "{$name}.csr", '-subj', "/CN={$name}"]);
            OpenSsl::run($dir, ['x509', '-req', '-in', "{$name}.csr", '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', "{$name}.pem", '-days', '2', '-extfile', "{$name}.ext"]);
        }

        return self::$instance = new self($dir, "{$dir}/ca.pem", "{$dir}/local.pem", "{$dir}/local.key", "{$dir}/other.pem", "{$dir}/other.key");
    }
}
