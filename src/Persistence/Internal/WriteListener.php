<?php

declare(strict_types=1);

namespace Nexus\Persistence\Internal;

use Nexus\Persistence\Exception\PersistenceException;

/**
 * Told once when its write was committed (null) or failed (why). Called on the loop, outside
 * any actor's turn.
 *
 * @internal
 */
interface WriteListener
{
    public function writeDone(?PersistenceException $error): void;
}
