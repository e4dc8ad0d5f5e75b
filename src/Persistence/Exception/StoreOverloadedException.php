<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The group commit queue of this process is full (PersistenceSettings::$maxPendingWrites): the store
 * is slower than the writes arriving. Nothing was written; retry later.
 */
final class StoreOverloadedException extends PersistenceException {}
