<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Runtime\Future;

/**
 * What a ConnectionPool needs to know about its connections: how to open one, whether one can be
 * handed out, how to make one clean for the next borrower, and how to close one. CallbackConnector
 * builds one from closures.
 *
 * @template C of object
 */
interface PoolConnector
{
    /**
     * Opens a new connection. The future fails with the connector's own exception (the pool passes
     * it to the caller that has waited longest). Bound the connect with a timeout here: the pool
     * does not.
     *
     * @return Future<C>
     */
    public function connect(): Future;

    /**
     * Whether $connection may be handed out, asked before one is taken from the idle set and when
     * one comes back: false for a closed or broken connection, or one in a state a reset cannot
     * repair. The pool closes such a connection and frees its slot. Called often: keep it cheap.
     *
     * @param C $connection
     */
    public function isUsable(object $connection): bool;

    /**
     * Makes a returned connection clean for the next borrower (a ROLLBACK, say). Null when it
     * already is (the common case, and the fast one); otherwise a future: once fulfilled the
     * connection is reused, if it fails the connection is closed.
     *
     * @param C $connection
     *
     * @return Future<mixed>|null
     */
    public function reset(object $connection): ?Future;

    /**
     * Closes $connection at once. Whatever it throws is reported to the loop's error handler.
     *
     * @param C $connection
     */
    public function close(object $connection): void;
}
