<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * The actor is stopping or stopped and cannot do what was asked (spawn a child, for example).
 */
final class ActorStoppingException extends ActorException {}
