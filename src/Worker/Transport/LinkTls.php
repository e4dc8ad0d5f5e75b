<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Worker\Exception\LinkTlsException;

/**
 * Mutual TLS for the links between nodes (TcpTransport), both ends: this node's certificate and
 * key (PEM), presented on every link whichever end it is (listening: as the server; dialling: as
 * the client), and the CA file (PEM) every other node's certificate must be signed by, checked
 * on every link too: the dialling end checks the listening one's (and its name: $peerName, a DNS
 * name or IP in its subjectAltName; null: the IP address dialled), the listening end requires the
 * dialler's (a dialler with none, or one the CA did not sign, is refused in the TLS handshake),
 * so a holder of the cluster secret without a certificate from the cluster CA cannot link.
 *
 * The files are checked when this is made (readable PEM files, the key belongs to the
 * certificate, and the certificate may serve both ends of a link: an extendedKeyUsage, when it
 * has one, lists both serverAuth and clientAuth), and read by OpenSSL at each handshake.
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
            $parsed = openssl_x509_parse($cert);
            $purposes = \is_array($parsed) && \is_array($parsed['purposes'] ?? null) ? $parsed['purposes'] : [];
            foreach ([\X509_PURPOSE_SSL_SERVER => 'serverAuth (it is presented to the nodes that link to this one)', \X509_PURPOSE_SSL_CLIENT => 'clientAuth (it is presented to the nodes this one links to)'] as $purpose => $why) {
                $fit = $purposes[$purpose] ?? null;
                if (\is_array($fit) && ($fit[0] ?? null) === false) {
                    throw new LinkTlsException("The TLS certificate {$certFile} may not be used for {$why}: make it with extendedKeyUsage=serverAuth,clientAuth (see docs/cluster.md).");
                }
            }
        }
        if ($peerName !== null && preg_match('/^[A-Za-z0-9_.:*-]{1,253}$/', $peerName) !== 1) {
            throw new LinkTlsException("The peer name that node certificates carry must be a DNS name or an IP address, got '{$peerName}'.");
        }
    }

    /**
     * The stream context's "ssl" options of the listening end (TLS server): it presents this
     * node's certificate and requires the dialler's, signed by the CA (PHP's server end asks for
     * a client certificate only with verify_peer, and then fails the handshake without one). The
     * dialler's name is not checked: which node it is, the HMAC handshake inside proves.
     *
     * @return array<string, mixed>
     */
    public function serverOptions(): array
    {
        return [
            'local_cert' => $this->certFile,
            'local_pk' => $this->keyFile,
            'cafile' => $this->caFile,
            'verify_peer' => true,
            'verify_peer_name' => false,
            'allow_self_signed' => false,
            'disable_compression' => true,
        ];
    }

    /**
     * The stream context's "ssl" options of the dialling end (TLS client) towards $host: it
     * verifies the listening end's certificate and name, and presents this node's certificate.
     *
     * @return array<string, mixed>
     */
    public function clientOptions(string $host): array
    {
        return [
            'local_cert' => $this->certFile,
            'local_pk' => $this->keyFile,
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
