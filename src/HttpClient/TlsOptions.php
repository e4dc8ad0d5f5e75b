<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\InvalidOptionsException;

/**
 * TLS settings for https:// origins (PHP's stream crypto, OpenSSL underneath).
 *
 * - verifyPeer: check the server's certificate chain and that it names the host (on by default;
 *   turn it off only for a test server you control).
 * - caFile / caPath: trust these CA certificates instead of the system store (Debian:
 *   /etc/ssl/certs through OpenSSL's default paths, or PHP's openssl.cafile when set).
 * - peerName: the name the certificate must carry and the SNI name sent, when it is not the URL's
 *   host (connecting to an IP address for a named service, say).
 */
final readonly class TlsOptions
{
    public function __construct(
        public bool $verifyPeer = true,
        public ?string $caFile = null,
        public ?string $caPath = null,
        public ?string $peerName = null,
    ) {
        if ($caFile !== null && !is_file($caFile)) {
            throw new InvalidOptionsException("The CA file {$caFile} does not exist: give the path of a PEM file of trusted certificates.");
        }
        if ($caPath !== null && !is_dir($caPath)) {
            throw new InvalidOptionsException("The CA path {$caPath} is not a directory of hashed certificates (see openssl rehash).");
        }
    }

    /**
     * The ssl stream context options for a connection to $host.
     *
     * @return array<string, mixed>
     */
    public function contextFor(string $host): array
    {
        $name = $this->peerName ?? $host;
        $options = [
            'verify_peer' => $this->verifyPeer,
            'verify_peer_name' => $this->verifyPeer,
            'allow_self_signed' => false,
            'peer_name' => $name,
            'SNI_enabled' => true,
            'disable_compression' => true,
            'capture_peer_cert' => false,
        ];
        if ($this->caFile !== null) {
            $options['cafile'] = $this->caFile;
        }
        if ($this->caPath !== null) {
            $options['capath'] = $this->caPath;
        }

        return $options;
    }
}
