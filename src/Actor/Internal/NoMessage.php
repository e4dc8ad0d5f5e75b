<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * Marks that an actor is not handling a message right now (null is a message like any other).
 *
 * @internal
 */
enum NoMessage
{
    case Instance;
}
