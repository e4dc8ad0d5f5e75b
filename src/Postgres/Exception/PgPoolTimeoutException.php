<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

use Nexus\Pool\Exception\PoolTimeoutException;

/**
 * Every connection of the pool stayed busy for the whole wait timeout.
 */
final class PgPoolTimeoutException extends PoolTimeoutException implements PgException {}
