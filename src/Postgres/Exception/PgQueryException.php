<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

/**
 * The server rejected a statement. $sqlState is the five-character SQLSTATE code (23505 for a
 * unique violation, 42601 for a syntax error, ...).
 */
class PgQueryException extends \RuntimeException implements PgException
{
    public function __construct(
        string $message,
        public readonly string $sqlState,
        public readonly string $serverMessage = '',
        public readonly ?string $detail = null,
        public readonly ?string $hint = null,
        public readonly ?string $constraint = null,
        public readonly string $sql = '',
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
    }
}
