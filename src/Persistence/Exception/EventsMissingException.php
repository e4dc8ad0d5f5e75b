<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The journal has a hole: events the state depends on were deleted (or never written) and no
 * snapshot covers them. Recovery stops rather than build a wrong state.
 */
final class EventsMissingException extends PersistenceException {}
