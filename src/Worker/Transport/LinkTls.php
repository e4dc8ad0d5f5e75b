<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Worker\Exception\LinkTlsException;

/**
 * TLS for the links between nodes (TcpTransport), both ends: this node's certificate and key
 * (PEM), presented when another node links here, and the CA file (PEM) every other node's
 * certificate must be signed by, checked when this node links there. $peerName is the name a
 * node's certificate must carry (a DNS name or IP in its subjectAltName); null: the IP address
 * dialled. The files are checked when this is made (they must be readable files), read by
 * OpenSSL at each handshake.
 */
final readonly class LinkTls
{
    public function __construct(
        public string $certFile,
        public string $keyFile,
        public string $caFile,
        public ?string $peerName = null,
    ) {
        foreach (['certificate' => $certFile, 'key' => $keyFile, 'CA' => $caFile] as $what => $file) {
            if (!is_file($file) || !is_readable($file)) {
                throw new LinkTlsException("The TLS {$what} file for the links between nodes, {$file}, is not a readable file; check the path and its permissions.");
            }
            $contents = (string) @file_get_contents($file, length: 1 << 20);
            if (!str_contains($contents, '-----BEGIN ')) {
                throw new LinkTlsException("The TLS {$what} file for the links between nodes, {$file}, holds no PEM block (-----BEGIN ...); give a PEM file (see docs/cluster.md for openssl commands).");
            }
        }
        if (\function_exists('openssl_x509_check_private_key')) {
            $cert = @openssl_x509_read((string) file_get_contents($certFile));
            $key = @openssl_pkey_get_private((string) file_get_contents($keyFile));
            if ($cert === false) {
                throw new LinkTlsException("The TLS certificate file for the links between nodes, {$certFile}, holds no certificate OpenSSL can read.");
            }
            if ($key === false) {
                throw new LinkTlsException("The TLS key file for the links between nodes, {$keyFile}, holds no private key OpenSSL can read (an encrypted key is not supported: decrypt it with openssl pkey).");
            }
            if (!openssl_x509_check_private_key($cert, $key)) {
                throw new LinkTlsException("The TLS key {$keyFile} does not belong to the certificate {$certFile}; give the key the certificate was made for.");
            }
        }
        if ($peerName !== null && preg_match('/^[A-Za-z0-9_.:*-]{1,253}$/', $peerName) !== 1) {
            throw new LinkTlsException("The peer name that node certificates carry must be a DNS name or an IP address, got '{$peerName}'.");
        }
    }

    /**
     * The stream context's "ssl" options of the listening end (TLS server).
     *
     * @return array<string, mixed>
     */
    public function serverOptions(): array
    {
        return [
            'local_cert' => $this->certFile,
            'local_pk' => $this->keyFile,
            'verify_peer' => false,
            'verify_peer_name' => false,
            'allow_self_signed' => false,
            'disable_compression' => true,
        ];
    }

    /**
     * The stream context's "ssl" options of the dialling end (TLS client) towards $host.
     *
     * @return array<string, mixed>
     */
    public function clientOptions(string $host): array
    {
        return [
            'cafile' => $this->caFile,
            'verify_peer' => true,
            'verify_peer_name' => true,
            'peer_name' => $this->peerName ?? $host,
            'allow_self_signed' => false,
            'SNI_enabled' => filter_var($this->peerName ?? $host, \FILTER_VALIDATE_IP) === false,
            'disable_compression' => true,
        ];
    }
}
