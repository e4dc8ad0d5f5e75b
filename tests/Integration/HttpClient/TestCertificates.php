<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

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
        $dir = sys_get_temp_dir() . '/nexus-certs-' . bin2hex(random_bytes(4));
        if (!mkdir($dir, 0o700)) {
            throw new \RuntimeException("Cannot create {$dir}.");
        }
        register_shutdown_function(static function () use ($dir): void {
            foreach (glob("{$dir}/*") ?: [] as $file) {
                @unlink($file);
            }
            @rmdir($dir);
        });
        self::run($dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Nexus Test CA']);
        foreach (['local' => 'subjectAltName=IP:127.0.0.1,DNS:localhost', 'other' => 'subjectAltName=DNS:other.test'] as $name => $san) {
            file_put_contents("{$dir}/{$name}.ext", "{$san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
            self::run($dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', "{$name}.key", '-out', "{$name}.csr", '-subj', "/CN={$name}"]);
            self::run($dir, ['x509', '-req', '-in', "{$name}.csr", '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', "{$name}.pem", '-days', '2', '-extfile', "{$name}.ext"]);
        }

        return self::$instance = new self($dir, "{$dir}/ca.pem", "{$dir}/local.pem", "{$dir}/local.key", "{$dir}/other.pem", "{$dir}/other.key");
    }

    /**
     * @param list<string> $args
     */
    private static function run(string $dir, array $args): void
    {
        $process = proc_open(['openssl', ...$args], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $dir);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot run openssl (Debian: apt-get install -y openssl).');
        }
        $output = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        if (proc_close($process) !== 0) {
            throw new \RuntimeException('openssl ' . implode(' ', $args) . " failed:\n{$output}");
        }
    }
}
