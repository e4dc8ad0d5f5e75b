<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * Anything the worker pool throws.
 */
interface WorkerException extends \Throwable {}
