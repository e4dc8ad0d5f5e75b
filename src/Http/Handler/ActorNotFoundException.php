<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/** An #[Actor] parameter names an actor that is not running; the request fails with 500. */
final class ActorNotFoundException extends \RuntimeException {}
