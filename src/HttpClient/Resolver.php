<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\Runtime\Future;

/**
 * Turns a host name into IP addresses for the client to connect to. The default, SystemResolver,
 * asks the operating system (which blocks: see there); give ClientOptions a resolver of your own
 * (a StaticResolver, or one that queries a DNS server on the loop) to avoid that.
 */
interface Resolver
{
    /**
     * The addresses of $host, in the order to try them (IPv4 dotted quads or IPv6 without brackets).
     * Fails with a ConnectException when the name does not resolve.
     *
     * @return Future<non-empty-list<string>>
     */
    public function resolve(string $host): Future;
}
