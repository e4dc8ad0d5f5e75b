<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * stash() was called with the stash already at its capacity.
 */
final class StashOverflowException extends ActorException {}
