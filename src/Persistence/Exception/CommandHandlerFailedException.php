<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The command handler or the event handler threw (the cause is the previous exception). The actor
 * fails and its supervisor decides what happens to it.
 */
final class CommandHandlerFailedException extends PersistenceException {}
