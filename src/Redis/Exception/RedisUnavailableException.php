<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * An error reply that says the server cannot serve right now ("-LOADING Redis is loading the
 * dataset in memory" after a restart, BUSY, TRYAGAIN, MASTERDOWN, CLUSTERDOWN): the same command
 * may succeed a moment later. The connection is still fine.
 */
final class RedisUnavailableException extends RedisErrorException implements TransientException {}
