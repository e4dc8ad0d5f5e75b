<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Admin\Exception\AdminAddressException;

/**
 * Where the admin listener listens: `HOST:PORT` with an IP address (`127.0.0.1:9090`,
 * `[::1]:9090`, `0.0.0.0:9090`), or `off`. The default is 127.0.0.1:9090: only this machine.
 */
final readonly class AdminAddress
{
    public const DEFAULT = '127.0.0.1:9090';

    private function __construct(
        public string $host,
        public int $port,
    ) {}

    /**
     * @return self|null null for `off`
     *
     * @throws AdminAddressException
     */
    public static function parse(string $value): ?self
    {
        if ($value === 'off') {
            return null;
        }
        if (preg_match('/^(\[[0-9a-fA-F:.]+\]|[0-9.]+):(\d{1,5})$/', $value, $match) !== 1
            || filter_var(trim($match[1], '[]'), \FILTER_VALIDATE_IP) === false
            || (int) $match[2] > 65535) {
            throw new AdminAddressException("The admin address must be HOST:PORT with an IP address (127.0.0.1:9090, [::1]:9090, 0.0.0.0:9090) or 'off', got '{$value}'.");
        }

        return new self($match[1], (int) $match[2]);
    }

    /**
     * The address for Listener::listen(): tcp://127.0.0.1:9090.
     */
    public function uri(): string
    {
        return "tcp://{$this->host}:{$this->port}";
    }

    /**
     * Whether only this machine can reach the listener (127.0.0.0/8 or ::1).
     */
    public function isLoopback(): bool
    {
        return self::isLoopbackHost($this->host);
    }

    public static function isLoopbackHost(string $host): bool
    {
        $host = trim($host, '[]');

        return $host === '::1' || str_starts_with($host, '127.') || $host === '::ffff:127.0.0.1';
    }

    public function __toString(): string
    {
        return "{$this->host}:{$this->port}";
    }
}
