<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * A sibling with the same name is still alive (or still stopping).
 */
final class ActorNameTakenException extends ActorException {}
