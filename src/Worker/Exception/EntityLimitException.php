<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * An entity could not start: its kind already has EntitySettings::$maxActive entities alive on
 * this worker and none of the least recently used ones is idle (each has messages waiting or a
 * write in flight). Nothing was delivered; retry once the others have caught up, or raise the limit.
 */
final class EntityLimitException extends \RuntimeException implements WorkerException, TransientException {}
