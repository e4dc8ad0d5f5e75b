<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The persistent actor stopped or restarted while this command was pending. If the command had
 * already persisted events they are stored, but its effects (the reply) never ran.
 */
final class ActorStoppedException extends PersistenceException {}
