<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

use Nexus\Pool\Exception\PoolClosedException;

/**
 * The pool was closed: it hands out no more connections.
 */
final class PgPoolClosedException extends PoolClosedException implements PgException {}
