<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/** A route declaration is wrong (bad pattern, duplicate route or name); raised at boot. */
final class RouteDefinitionException extends \LogicException {}
