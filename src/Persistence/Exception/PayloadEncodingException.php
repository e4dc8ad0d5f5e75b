<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * A value could not be stored: its class is not registered under a logical name, it does not
 * encode to JSON, it is larger than the payload limit, or it holds something the store cannot
 * keep. Nothing was written; the command that produced it fails.
 */
final class PayloadEncodingException extends PersistenceException {}
