<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * The connection could not be opened, was lost, or was closed while work was pending.
 */
class PgConnectionException extends \RuntimeException implements PgException, TransientException {}
