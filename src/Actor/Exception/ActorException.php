<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * Base of every failure the actor runtime raises.
 */
class ActorException extends \RuntimeException {}
