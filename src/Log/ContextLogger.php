<?php

declare(strict_types=1);

namespace Nexus\Log;

use Psr\Log\AbstractLogger;
use Psr\Log\LoggerInterface;

/**
 * Adds fixed context (such as the actor's path) to everything logged through it.
 */
final class ContextLogger extends AbstractLogger
{
    /**
     * @param array<string, mixed> $context
     */
    public function __construct(private readonly LoggerInterface $inner, private readonly array $context) {}

    /**
     * @param mixed[] $context
     */
    public function log($level, string|\Stringable $message, array $context = []): void
    {
        $this->inner->log($level, $message, $context + $this->context);
    }
}
