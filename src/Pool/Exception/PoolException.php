<?php

declare(strict_types=1);

namespace Nexus\Pool\Exception;

/**
 * Marker of every failure Nexus\Pool itself reports (a connector's own failures pass through as
 * they are).
 */
interface PoolException extends \Throwable {}
