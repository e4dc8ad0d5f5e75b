<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * A stored payload could not be turned back into a value: its logical name is not registered,
 * its bytes are not what its format says, an upcaster failed, or it names a class that is not
 * registered. Register the name (or an alias), add an upcaster, or fix the payload.
 */
final class PayloadDecodingException extends PersistenceException {}
