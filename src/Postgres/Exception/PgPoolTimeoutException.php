<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * Every connection of the pool stayed busy for the whole wait timeout.
 */
final class PgPoolTimeoutException extends \RuntimeException implements PgException {}
