<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/** A URL could not be built: unknown route name, or missing or invalid parameters. */
final class UrlGenerationException extends \InvalidArgumentException {}
