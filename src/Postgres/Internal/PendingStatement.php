<?php

declare(strict_types=1);

namespace Nexus\Postgres\Internal;

use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;

/**
 * One statement of a PgConnection, from submission to its result: what to send, whom to tell,
 * and the cancellation it runs under. A cancelled entry stays in its queue as a tombstone and is
 * skipped.
 *
 * @internal
 */
final class PendingStatement
{
    public bool $cancelled = false;
    public ?int $subscription = null;

    /**
     * @param array<mixed>    $params already encoded: string, int or null
     * @param Deferred<mixed> $deferred
     * @param int             $size   bytes of text and parameters, to pick the send mode
     * @param object|null     $owner  for a transaction waiting to start: the fiber (or connection, from
     *                                top-level code) that will own it
     */
    public function __construct(
        public readonly int $kind,
        public readonly string $sql,
        public readonly array $params,
        public readonly string $name,
        public readonly Deferred $deferred,
        public readonly int $size = 0,
        public readonly ?Cancellation $cancellation = null,
        public readonly ?object $owner = null,
    ) {}
}
