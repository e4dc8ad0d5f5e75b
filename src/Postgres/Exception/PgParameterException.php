<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * A query parameter has a PHP type that has no PostgreSQL text form.
 */
final class PgParameterException extends \InvalidArgumentException implements PgException {}
