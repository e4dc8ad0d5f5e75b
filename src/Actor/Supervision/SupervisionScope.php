<?php

declare(strict_types=1);

namespace Nexus\Actor\Supervision;

/**
 * Which children a directive applies to when one of them fails.
 */
enum SupervisionScope
{
    /** Only the child that failed. */
    case OneForOne;
    /** Every child of the supervisor. */
    case AllForOne;
    /** The child that failed and every sibling started after it. */
    case RestForOne;
}
