<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

enum SegmentKind
{
    /** Fixed text that must equal the (decoded) request segment. */
    case Literal;
    /** One segment, any non-empty value (`{name}`) or one matching a regex (`{id:\d+}`). */
    case Param;
    /** The rest of the path, several segments joined with "/" (`{path:.+}` or `{path:.*}`); last only. */
    case Rest;
    /** Text and parameters within one segment (`{name}.{ext}`), matched by one regex compiled at boot. */
    case Mixed;
}
