<?php

declare(strict_types=1);

namespace Nexus\Cluster;

/**
 * Where a member stands, as one node's view shows it (the admin view, /metrics):
 *
 * - Joining: in the view, but it has not applied the view that added it yet (its workers are
 *   still taking their entities); for this node also: waiting for etcd, or not in a view yet.
 * - Member: serves its share of the placed actors.
 * - Fenced: this node could not renew its lease and stopped hosting; it joins again as a new
 *   incarnation (only this node can know that of itself).
 * - Leaving: it hands its entities off before it leaves (SIGTERM).
 */
enum MemberState: string
{
    case Joining = 'joining';
    case Member = 'member';
    case Fenced = 'fenced';
    case Leaving = 'leaving';
}
