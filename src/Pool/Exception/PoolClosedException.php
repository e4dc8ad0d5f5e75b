<?php

declare(strict_types=1);

namespace Nexus\Pool\Exception;

/**
 * The pool was closed: it hands out no more connections, and callers that were waiting fail with
 * this. Create a new pool.
 *
 * Not final: PgPoolClosedException and RedisPoolClosedException extend it.
 */
class PoolClosedException extends \RuntimeException implements PoolException {}
