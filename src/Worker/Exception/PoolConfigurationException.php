<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * Pool options that cannot work; the message says which and why.
 */
final class PoolConfigurationException extends \InvalidArgumentException implements WorkerException {}
