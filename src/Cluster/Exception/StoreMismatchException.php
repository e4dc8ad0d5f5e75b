<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

/**
 * A node's durable-actors store is not the one the cluster's members share: it is refused at join,
 * as an entity that moved to it would not find its history there.
 */
final class StoreMismatchException extends ClusterException {}
