<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * A future failed and was dropped without anybody awaiting it or handling its failure: reported
 * to the loop's error handler (logged by an actor system) so that the failure is not lost. The
 * previous exception is the failure, with its stack trace.
 */
final class UnhandledRejectionException extends \RuntimeException
{
    public function __construct(\Throwable $failure)
    {
        parent::__construct(\sprintf(
            'A future failed and nothing awaited it or handled its failure (await() it, or use onSettle() or ignore()): %s: %s',
            $failure::class,
            $failure->getMessage(),
        ), 0, $failure);
    }
}
