<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * The server refused a statement for a reason that passes, so the same statement may succeed
 * later: it is shutting down or starting up (SQLSTATE 57P01, 57P02, 57P03), a connection
 * exception (class 08), too many connections (53300), or the transaction lost a serialization
 * conflict or a deadlock (40001, 40P01: the whole transaction may be retried). Being a
 * TransientException, an HTTP handler that lets it escape answers 503 with Retry-After.
 */
final class PgServerUnavailableException extends PgQueryException implements TransientException
{
    private const TRANSIENT = ['57P01' => true, '57P02' => true, '57P03' => true, '53300' => true, '40001' => true, '40P01' => true];

    public static function isTransient(string $sqlState): bool
    {
        return isset(self::TRANSIENT[$sqlState]) || str_starts_with($sqlState, '08');
    }
}
