<?php

declare(strict_types=1);

namespace Nexus\Actor;

/**
 * @internal the shapes a Behavior can take
 */
enum BehaviorKind
{
    case Receive;
    case Stateful;
    case Setup;
    case Same;
    case Stopped;
    case Unhandled;
}
