<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Cluster\Exception\ClusterConfigurationException;
use Nexus\Worker\Transport\LinkTls;

/**
 * How a node joins a cluster (`nexus serve --cluster=...`):
 *
 * - $etcd: the etcd member to talk to, http://HOST:PORT; $prefix: the keys of this cluster in it.
 * - $node: this node's name (several nodes on one machine need distinct names).
 * - $advertiseHost, $advertisePort: where the other nodes reach this one's workers: worker w
 *   listens on $advertisePort + w (0: each worker on a free port, told through the membership).
 * - $listenHost, $listenPort: where the workers listen when that is not where they are reached
 *   (behind a NAT or a proxy); null: the advertised address. Worker w listens on $listenPort + w.
 * - $secret: what every node proves in the handshake of a link between nodes (null: the cluster
 *   keeps one in etcd, created by the first node; then anyone who can read etcd can join).
 * - $leaseTtl: seconds a node stays a member without renewing its lease: a killed node's entities
 *   serve again elsewhere within about this plus 2 s.
 * - $leaveTimeout: the longest a graceful leave (SIGTERM) waits for its entities to be handed off.
 * - $tls: TLS on the links between nodes (certificate, key, CA; see LinkTls); null: plain TCP.
 *   Every node of a cluster uses it or none does: a TLS node refuses a plaintext peer and the
 *   other way round.
 * - $joinWait: seconds a node that cannot reach etcd as it starts keeps trying before it gives up
 *   (EtcdWaitExpiredException); 0: it waits until etcd answers or it is stopped.
 */
final readonly class ClusterOptions
{
    public function __construct(
        public string $etcd,
        public string $node,
        public string $advertiseHost = '127.0.0.1',
        public int $advertisePort = 0,
        #[\SensitiveParameter]
        public ?string $secret = null,
        public string $prefix = '/nexus/',
        public int $leaseTtl = 10,
        public float $leaveTimeout = 15.0,
        public ?string $listenHost = null,
        public ?int $listenPort = null,
        public ?LinkTls $tls = null,
        public float $joinWait = 0.0,
    ) {
        if (preg_match('#^http://[^/\s]+$#', $etcd) !== 1) {
            throw new ClusterConfigurationException("The cluster's etcd is http://HOST:PORT (from --cluster=etcd://HOST:PORT), got '{$etcd}'.");
        }
        if (preg_match('/^[A-Za-z0-9_.-]{1,64}$/', $node) !== 1) {
            throw new ClusterConfigurationException("A node name is 1 to 64 letters, digits, '_', '.' or '-', got '{$node}'.");
        }
        if (filter_var(trim($advertiseHost, '[]'), \FILTER_VALIDATE_IP) === false) {
            throw new ClusterConfigurationException("The advertised host must be an IP address the other nodes reach this one at, got '{$advertiseHost}'.");
        }
        if ($advertisePort < 0 || $advertisePort > 65535 || ($listenPort !== null && ($listenPort < 0 || $listenPort > 65535))) {
            throw new ClusterConfigurationException("The advertised and listening ports must be 0 to 65535, got {$advertisePort} and {$listenPort}.");
        }
        if ($listenHost !== null && filter_var(trim($listenHost, '[]'), \FILTER_VALIDATE_IP) === false) {
            throw new ClusterConfigurationException("The address to listen for other nodes on must be an IP address of this machine, got '{$listenHost}'.");
        }
        if ($secret !== null && \strlen($secret) < 16) {
            throw new ClusterConfigurationException('The cluster secret needs at least 16 bytes; make one with: head -c 32 /dev/urandom | base64 > cluster.secret');
        }
        if ($leaseTtl < 2 || $leaseTtl > 300) {
            throw new ClusterConfigurationException("The lease TTL is 2 to 300 seconds (etcd's minimum is about 2), got {$leaseTtl}.");
        }
        if ($joinWait < 0.0) {
            throw new ClusterConfigurationException("The time to wait for etcd at start is 0 (forever) or more seconds, got {$joinWait}.");
        }
        if (!str_starts_with($prefix, '/') || str_contains($prefix, "\0")) {
            throw new ClusterConfigurationException("The cluster's key prefix starts with '/', got '{$prefix}'.");
        }
    }

    /**
     * From --cluster=etcd://HOST:PORT[/PREFIX].
     *
     * @return array{string, string} the etcd endpoint (http://HOST:PORT) and the key prefix
     */
    public static function parseUrl(string $url): array
    {
        if (preg_match('#^etcd://([^/\s:]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})(/[A-Za-z0-9_./-]*)?$#', $url, $m, \PREG_UNMATCHED_AS_NULL) !== 1 || (int) $m[2] > 65535) {
            throw new ClusterConfigurationException("--cluster takes etcd://HOST:PORT (optionally /PREFIX), such as etcd://127.0.0.1:2379, got '{$url}'.");
        }
        $path = $m[3] ?? '';

        return ["http://{$m[1]}:{$m[2]}", $path === '' || $path === '/' ? '/nexus/' : rtrim($path, '/') . '/'];
    }
}
