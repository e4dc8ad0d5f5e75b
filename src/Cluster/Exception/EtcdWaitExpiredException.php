<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

/**
 * A starting node did not reach etcd within the time it was given to wait (--cluster-wait): it
 * did not join, served nothing, and exits. The message says the endpoint and the last error.
 */
final class EtcdWaitExpiredException extends ClusterException {}
