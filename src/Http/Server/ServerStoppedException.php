<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

/**
 * listen() on a server that stop() was already called on.
 */
final class ServerStoppedException extends \LogicException {}
