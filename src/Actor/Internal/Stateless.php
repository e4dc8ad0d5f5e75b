<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * The state slot of an actor whose behavior keeps no state (null is a state like any other).
 *
 * @internal
 */
enum Stateless
{
    case Instance;
}
