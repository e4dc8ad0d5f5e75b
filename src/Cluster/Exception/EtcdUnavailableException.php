<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * etcd did not answer (refused, timed out, connection lost) or answered that it cannot serve now:
 * the cluster's membership cannot be read or renewed. Transient: the node retries, and stops
 * hosting entities if its lease could expire meanwhile.
 */
final class EtcdUnavailableException extends ClusterException implements TransientException {}
