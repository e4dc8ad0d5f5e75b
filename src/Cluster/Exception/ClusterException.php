<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

/**
 * Base of the cluster's failures.
 */
class ClusterException extends \RuntimeException {}
