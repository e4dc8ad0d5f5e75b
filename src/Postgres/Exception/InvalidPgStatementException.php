<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * The statement text cannot be sent as it is: it holds a NUL byte, where libpq would silently cut
 * it short. Nothing was sent; pass data as parameters instead.
 */
final class InvalidPgStatementException extends \InvalidArgumentException implements PgException {}
