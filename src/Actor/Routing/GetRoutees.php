<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

/**
 * Asks a router for its current routees; it replies with Routees.
 */
final class GetRoutees {}
