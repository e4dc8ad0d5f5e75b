<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Worker\Exception\PoolConfigurationException;

/**
 * How the entities of one kind live on a worker (Workers::kind()):
 *
 * - $idleTimeout: an entity that has handled no message for this many seconds is passivated: it
 *   stops through a PoisonPill (after the messages queued before it; a persistent entity holds it
 *   while a write is in flight), and its next message starts it again (a persistent one recovers
 *   its state). Null: never by time.
 * - $maxActive: entities of this kind alive on one worker at most. Starting one more passivates
 *   the least recently used idle one (an idle entity has no message waiting and no write in
 *   flight); when none of the least recently used ones is idle, the start is refused with
 *   EntityLimitException (transient: HTTP answers 503 with Retry-After).
 * - $maxBuffered: messages kept for one entity between its stop and the start of its next
 *   incarnation (they are delivered to it in order); one more becomes a dead letter
 *   (RecipientTerminated) and an ask waiting on it fails at once.
 */
final readonly class EntitySettings
{
    public function __construct(
        public ?float $idleTimeout = 120.0,
        public int $maxActive = 100_000,
        public int $maxBuffered = 1_000,
    ) {
        if ($idleTimeout !== null && !($idleTimeout > 0.0)) {
            throw new PoolConfigurationException("An entity idle timeout must be above 0 seconds (null: never), got {$idleTimeout}.");
        }
        if ($maxActive < 1 || $maxBuffered < 1) {
            throw new PoolConfigurationException("maxActive and maxBuffered must be at least 1, got {$maxActive} and {$maxBuffered}.");
        }
    }
}
