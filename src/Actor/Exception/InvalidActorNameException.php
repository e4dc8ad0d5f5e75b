<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * A name given to spawn() cannot be used (empty, contains a slash or whitespace, or starts with the $ reserved for anonymous actors).
 */
final class InvalidActorNameException extends ActorException {}
