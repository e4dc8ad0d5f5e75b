<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * A query parameter cannot be sent: its PHP type has no PostgreSQL text form, an array or
 * JsonSerializable cannot be encoded as JSON, or a text value holds a NUL byte (PostgreSQL text
 * cannot hold one, and libpq would cut the value short). Only that statement fails; nothing was
 * sent for it.
 */
final class PgParameterException extends \InvalidArgumentException implements PgException {}
