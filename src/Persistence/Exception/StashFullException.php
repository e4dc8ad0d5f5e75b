<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * A command arrived while the actor was recovering or persisting and its stash was full
 * (PersistenceSettings::$stashCapacity). Nothing was done with it; retry later.
 */
final class StashFullException extends PersistenceException {}
