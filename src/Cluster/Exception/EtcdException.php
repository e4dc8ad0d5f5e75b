<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

/**
 * etcd refused a request (a malformed key, a lease it does not know, a request it does not
 * support): the message is etcd's own, with the call that failed.
 */
final class EtcdException extends ClusterException {}
