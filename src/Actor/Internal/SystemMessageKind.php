<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * @internal
 */
enum SystemMessageKind
{
    case Stop;
    case Resume;
    case Recreate;
    case Failed;
    case ChildTerminated;
    case Watch;
    case Unwatch;
    case DeathNotice;
}
