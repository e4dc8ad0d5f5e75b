<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * @internal
 */
enum TimerMode
{
    case Single;
    case FixedRate;
    case FixedDelay;
}
