<?php

declare(strict_types=1);

namespace Nexus\Worker\Topic;

use Nexus\Worker\Exception\WorkerException;

/**
 * A WebSocket is already subscribed to as many topics as Topics allows one connection
 * (maxTopicsPerSocket); unsubscribe it from one first, or raise the bound.
 */
final class TooManyTopicsException extends \RuntimeException implements WorkerException {}
