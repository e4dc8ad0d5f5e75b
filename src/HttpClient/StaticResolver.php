<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\ConnectException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Resolves from a fixed map (host => addresses), never blocking: for service names in a cluster,
 * tests, or to pin a host to an address. Other names go to $fallback when one is given, else fail.
 * IP literals resolve to themselves.
 */
final class StaticResolver implements Resolver
{
    /** @var array<string, non-empty-list<string>> */
    private readonly array $hosts;

    /**
     * @param array<string, string|non-empty-list<string>> $hosts
     */
    public function __construct(private readonly Loop $loop, array $hosts, private readonly ?Resolver $fallback = null)
    {
        $map = [];
        foreach ($hosts as $host => $addresses) {
            $list = \is_string($addresses) ? [$addresses] : $addresses;
            foreach ($list as $address) {
                if (filter_var($address, \FILTER_VALIDATE_IP) === false) {
                    throw new Exception\InvalidOptionsException("StaticResolver: '{$address}' (for {$host}) is not an IP address.");
                }
            }
            $map[strtolower((string) $host)] = $list;
        }
        $this->hosts = $map;
    }

    public function resolve(string $host): Future
    {
        $addresses = $this->hosts[strtolower($host)] ?? null;
        if ($addresses !== null) {
            return Future::fulfilled($this->loop, $addresses);
        }
        if (filter_var($host, \FILTER_VALIDATE_IP) !== false) {
            return Future::fulfilled($this->loop, [$host]);
        }
        if ($this->fallback !== null) {
            return $this->fallback->resolve($host);
        }

        return Future::rejected($this->loop, new ConnectException("Cannot resolve {$host}: it is not in the StaticResolver's map (and it has no fallback)."));
    }
}
