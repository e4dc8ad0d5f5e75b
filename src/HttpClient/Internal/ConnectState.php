<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\Runtime\Deferred;

/**
 * One connect in progress: the addresses left to try, the socket, its watcher and the
 * connect-timeout timer, all undone together when it succeeds, fails or times out.
 *
 * @internal
 */
final class ConnectState
{
    /** @var list<string> */
    public array $addresses = [];
    public int $next = 0;
    /** @var resource|null */
    public mixed $stream = null;
    public ?int $watcher = null;
    public ?int $timer = null;
    public bool $handshaking = false;
    public string $lastError = 'no address to try';

    /**
     * @param Deferred<HttpConnection> $deferred
     */
    public function __construct(public readonly Deferred $deferred) {}
}
