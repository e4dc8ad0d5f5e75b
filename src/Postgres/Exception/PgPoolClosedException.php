<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * The pool was closed: it hands out no more connections.
 */
final class PgPoolClosedException extends \RuntimeException implements PgException {}
