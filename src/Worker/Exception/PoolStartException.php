<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * The pool could not start: its port, its runtime directory or fork() failed.
 */
final class PoolStartException extends \RuntimeException implements WorkerException {}
