<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/** A route's handler cannot be used as declared (unknown kind, unresolvable parameter); raised at boot. */
final class HandlerDefinitionException extends \LogicException {}
