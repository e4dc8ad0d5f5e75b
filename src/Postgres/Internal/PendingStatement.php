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
 * Plain properties set one by one: one of these is made per statement, and a promoted
 * constructor costs about twice as much under the JIT.
 *
 * @internal
 */
final class PendingStatement
{
    public int $kind = 0;
    public string $sql = '';
    /** @var array<mixed> already encoded: string, int or null */
    public array $params = [];
    public string $name = '';
    /** @var Deferred<mixed> */
    public Deferred $deferred;
    /** bytes of text and parameters, to pick the send mode */
    public int $size = 0;
    public ?Cancellation $cancellation = null;
    public ?int $subscription = null;
    /** for a transaction waiting to start: the fiber (or connection, from top-level code) that will own it */
    public ?object $owner = null;
    public bool $cancelled = false;
}
