<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * The query ran past PgConfig::$queryTimeout and was cancelled on the server (SQLSTATE 57014).
 * The connection stays usable.
 */
final class PgQueryTimeoutException extends PgQueryException implements TransientException {}
