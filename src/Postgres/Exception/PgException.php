<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * Marker of every failure the PostgreSQL client throws.
 */
interface PgException extends \Throwable {}
