<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * One command persisted more events than PersistenceSettings::$maxEventsPerPersist allows; split
 * the work over several commands or raise the limit. Nothing was written.
 */
final class TooManyEventsException extends PersistenceException {}
