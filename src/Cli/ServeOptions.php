<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Admin\AdminAddress;
use Nexus\Admin\Exception\AdminAddressException;

/**
 * The command line of `nexus serve`, checked.
 */
final class ServeOptions
{
    private function __construct(
        public readonly ?string $appFile,
        public readonly string $host,
        public readonly int $port,
        public readonly bool $jit,
        public readonly bool $help,
        public readonly int $workers,
        public readonly int $maxRequests,
        public readonly int $maxMemory,
        public readonly float $handlerTimeout,
        /** @var list<string>|null */
        public readonly ?array $allowedHosts,
        public readonly string $dataDir = './var',
        public readonly ?string $store = null,
        public readonly ?string $cluster = null,
        public readonly ?string $node = null,
        public readonly ?string $advertise = null,
        public readonly ?string $clusterSecretFile = null,
        public readonly int $leaseTtl = 10,
        public readonly ?string $listenNodes = null,
        /** Where the admin listener listens; null: off. */
        public readonly ?AdminAddress $admin = null,
        /** TLS on the links between nodes: certificate, key and CA files (all or none), and the name node certificates carry. */
        public readonly ?string $clusterTlsCert = null,
        public readonly ?string $clusterTlsKey = null,
        public readonly ?string $clusterTlsCa = null,
        public readonly ?string $clusterTlsPeerName = null,
        /** Seconds a node waits for etcd as it starts before it gives up (0: forever). */
        public readonly int $clusterWait = 0,
    ) {}

    /**
     * @param list<string> $args
     */
    public static function parse(array $args): self
    {
        $appFile = null;
        $host = '127.0.0.1';
        $port = 8080;
        $jit = true;
        $help = false;
        $workers = 0;
        $maxRequests = 0;
        $maxMemory = 0;
        $handlerTimeout = 30.0;
        $allowedHosts = null;
        $dataDir = './var';
        $store = null;
        $cluster = $node = $advertise = $secretFile = $listenNodes = null;
        $leaseTtl = 10;
        $clusterWait = 0;
        $admin = null;
        $tlsCert = $tlsKey = $tlsCa = $tlsPeerName = null;
        foreach ($args as $arg) {
            if ($arg === '--help' || $arg === '-h') {
                $help = true;
            } elseif ($arg === '--no-jit') {
                $jit = false;
            } elseif (str_starts_with($arg, '--host=')) {
                $host = substr($arg, 7);
                if ($host === '' || filter_var(trim($host, '[]'), \FILTER_VALIDATE_IP) === false) {
                    throw new UsageException("--host must be an IP address such as 127.0.0.1 or [::1], got '{$host}'.");
                }
            } elseif (str_starts_with($arg, '--port=')) {
                $value = substr($arg, 7);
                if (!ctype_digit($value) || (int) $value > 65535) {
                    throw new UsageException("--port must be a number from 0 to 65535, got '{$value}'.");
                }
                $port = (int) $value;
            } elseif (str_starts_with($arg, '--workers=')) {
                $workers = self::number($arg, 1, 256);
            } elseif (str_starts_with($arg, '--max-requests=')) {
                $maxRequests = self::number($arg, 0, \PHP_INT_MAX);
            } elseif (str_starts_with($arg, '--max-memory=')) {
                $maxMemory = self::number($arg, 0, 1 << 40) * 1024 * 1024;
            } elseif (str_starts_with($arg, '--handler-timeout=')) {
                $value = substr($arg, 18);
                if (!is_numeric($value) || (float) $value <= 0.0 || (float) $value > 86_400.0) {
                    throw new UsageException("--handler-timeout must be a number of seconds above 0 and at most 86400 (e.g. 30 or 2.5), got '{$value}'.");
                }
                $handlerTimeout = (float) $value;
            } elseif (str_starts_with($arg, '--allowed-hosts=')) {
                $allowedHosts = [];
                foreach (explode(',', substr($arg, 16)) as $name) {
                    $name = strtolower(trim($name));
                    if ($name === '' || preg_match('/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/', $name) !== 1) {
                        throw new UsageException("--allowed-hosts takes host names separated by commas, without scheme or port (a.example,b.example), got '{$name}'.");
                    }
                    $allowedHosts[] = $name;
                }
            } elseif (str_starts_with($arg, '--data-dir=')) {
                $dataDir = substr($arg, 11);
                if ($dataDir === '') {
                    throw new UsageException('--data-dir needs a directory, such as --data-dir=./var.');
                }
            } elseif (str_starts_with($arg, '--store=')) {
                $store = substr($arg, 8);
                if (!str_starts_with($store, 'postgres://') && !str_starts_with($store, 'postgresql://')) {
                    throw new UsageException("--store takes a PostgreSQL URL such as postgres://USER:PASS@HOST:5432/DB, got '{$store}' (SQLite is the default: see --data-dir).");
                }
            } elseif (str_starts_with($arg, '--cluster=')) {
                $cluster = substr($arg, 10);
            } elseif (str_starts_with($arg, '--node=')) {
                $node = substr($arg, 7);
                if (preg_match('/^[A-Za-z0-9_.-]{1,64}$/', $node) !== 1) {
                    throw new UsageException("--node takes a name of 1 to 64 letters, digits, '_', '.' or '-', got '{$node}'.");
                }
            } elseif (str_starts_with($arg, '--advertise=')) {
                $advertise = substr($arg, 12);
                if (preg_match('/^(\[[0-9A-Fa-f:.]+\]|[0-9.]+):(\d{1,5})$/', $advertise, $m) !== 1 || (int) $m[2] > 65535 || filter_var(trim($m[1], '[]'), \FILTER_VALIDATE_IP) === false) {
                    throw new UsageException("--advertise takes IP:PORT where the other nodes reach this one (worker w listens on PORT + w; PORT 0 picks free ports), such as 10.0.0.5:7400, got '{$advertise}'.");
                }
            } elseif (str_starts_with($arg, '--listen-nodes=')) {
                $listenNodes = substr($arg, 15);
                if (preg_match('/^(\[[0-9A-Fa-f:.]+\]|[0-9.]+):(\d{1,5})$/', $listenNodes, $m) !== 1 || (int) $m[2] > 65535 || filter_var(trim($m[1], '[]'), \FILTER_VALIDATE_IP) === false) {
                    throw new UsageException("--listen-nodes takes IP:PORT where the workers listen for other nodes when that is not the advertised address, got '{$listenNodes}'.");
                }
            } elseif (str_starts_with($arg, '--cluster-secret-file=')) {
                $secretFile = substr($arg, 22);
            } elseif (str_starts_with($arg, '--cluster-tls-cert=')) {
                $tlsCert = self::file($arg);
            } elseif (str_starts_with($arg, '--cluster-tls-key=')) {
                $tlsKey = self::file($arg);
            } elseif (str_starts_with($arg, '--cluster-tls-ca=')) {
                $tlsCa = self::file($arg);
            } elseif (str_starts_with($arg, '--cluster-tls-peer-name=')) {
                $tlsPeerName = substr($arg, 24);
                if (preg_match('/^[A-Za-z0-9_.:*-]{1,253}$/', $tlsPeerName) !== 1) {
                    throw new UsageException("--cluster-tls-peer-name takes the DNS name or IP address every node's certificate carries, such as nexus-node, got '{$tlsPeerName}'.");
                }
            } elseif (str_starts_with($arg, '--lease-ttl=')) {
                $leaseTtl = self::number($arg, 2, 300);
            } elseif (str_starts_with($arg, '--cluster-wait=')) {
                $clusterWait = self::number($arg, 0, 86400);
            } elseif (str_starts_with($arg, '--admin=')) {
                $admin = substr($arg, 8);
                try {
                    AdminAddress::parse($admin);
                } catch (AdminAddressException $e) {
                    throw new UsageException('--admin: ' . $e->getMessage(), 0, $e);
                }
            } elseif (str_starts_with($arg, '-')) {
                throw new UsageException("Unknown option '{$arg}'. See: nexus serve --help");
            } elseif ($appFile === null) {
                $appFile = $arg;
            } else {
                throw new UsageException("Only one application file can be served, got '{$appFile}' and '{$arg}'.");
            }
        }

        if ($cluster === null && ($node !== null || $advertise !== null || $secretFile !== null || $listenNodes !== null || $clusterWait !== 0)) {
            throw new UsageException('--node, --advertise, --listen-nodes, --cluster-secret-file and --cluster-wait go with --cluster=etcd://HOST:PORT.');
        }
        $tlsGiven = array_filter(['--cluster-tls-cert' => $tlsCert, '--cluster-tls-key' => $tlsKey, '--cluster-tls-ca' => $tlsCa], static fn(?string $file): bool => $file !== null);
        if ($cluster === null && ($tlsGiven !== [] || $tlsPeerName !== null)) {
            throw new UsageException('--cluster-tls-cert, --cluster-tls-key, --cluster-tls-ca and --cluster-tls-peer-name go with --cluster=etcd://HOST:PORT.');
        }
        if ($tlsGiven !== [] && \count($tlsGiven) !== 3) {
            throw new UsageException('TLS between nodes takes all three of --cluster-tls-cert=FILE, --cluster-tls-key=FILE and --cluster-tls-ca=FILE, got only ' . implode(' and ', array_keys($tlsGiven)) . '.');
        }
        if ($tlsPeerName !== null && $tlsGiven === []) {
            throw new UsageException('--cluster-tls-peer-name goes with --cluster-tls-cert, --cluster-tls-key and --cluster-tls-ca.');
        }
        if ($cluster !== null && $node === null) {
            throw new UsageException('A node of a cluster needs a name: --node=NAME (unique in the cluster).');
        }
        // The default admin address, or a free port when the application's port is picked too.
        $adminAddress = AdminAddress::parse($admin ?? ($port === 0 ? '127.0.0.1:0' : AdminAddress::DEFAULT));
        if ($adminAddress !== null && $adminAddress->port !== 0 && $adminAddress->port === $port) {
            throw new UsageException("The admin listener never shares the application's port {$port}: choose another with --admin=HOST:PORT, or --admin=off.");
        }

        return new self($appFile, $host, $port, $jit, $help, $workers, $maxRequests, $maxMemory, $handlerTimeout, $allowedHosts, $dataDir, $store, $cluster, $node, $advertise, $secretFile, $leaseTtl, $listenNodes, $adminAddress, $tlsCert, $tlsKey, $tlsCa, $tlsPeerName, $clusterWait);
    }

    private static function file(string $arg): string
    {
        [$name, $value] = explode('=', $arg, 2);
        if ($value === '') {
            throw new UsageException("{$name} needs a file, such as {$name}=/etc/nexus/node.pem.");
        }

        return $value;
    }

    private static function number(string $arg, int $min, int $max): int
    {
        [$name, $value] = explode('=', $arg, 2);
        if (!ctype_digit($value) || (int) $value < $min || (int) $value > $max) {
            throw new UsageException(sprintf('%s must be a whole number from %d to %d, got \'%s\'.', $name, $min, $max, $value));
        }

        return (int) $value;
    }
}
