<?php

declare(strict_types=1);

namespace Nexus\Cluster\Exception;

/**
 * A cluster option that cannot work; the message says which and what to give instead.
 */
final class ClusterConfigurationException extends ClusterException {}
