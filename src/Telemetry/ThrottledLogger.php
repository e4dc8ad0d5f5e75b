<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

use Psr\Log\AbstractLogger;
use Psr\Log\LoggerInterface;

/**
 * The log of the OpenTelemetry SDK's own messages (an export that failed, an attribute it
 * refused): passed to the worker's logger, each distinct message at most once per INTERVAL
 * seconds, with the number of repeats held back meanwhile, so that a collector that is down does
 * not flood the log. Bounds: at most MAX_MESSAGES distinct messages are remembered; past that
 * the memory is cleared.
 *
 * @internal
 */
final class ThrottledLogger extends AbstractLogger
{
    public const INTERVAL = 10.0;
    public const MAX_MESSAGES = 64;

    /** @var array<string, array{float, int}> when each message was last logged, repeats since */
    private array $seen = [];

    /**
     * @param \Closure(): float $now
     */
    public function __construct(
        private readonly LoggerInterface $logger,
        private readonly \Closure $now,
    ) {}

    public function log($level, string|\Stringable $message, array $context = []): void
    {
        $key = (\is_scalar($level) ? (string) $level : 'log') . ' ' . $message;
        $now = ($this->now)();
        $seen = $this->seen[$key] ?? null;
        if ($seen !== null && $now - $seen[0] < self::INTERVAL) {
            $this->seen[$key][1] = $seen[1] + 1;

            return;
        }
        if ($seen === null && \count($this->seen) >= self::MAX_MESSAGES) {
            $this->seen = [];
        }
        $this->seen[$key] = [$now, 0];
        $repeats = $seen[1] ?? 0;
        $this->logger->log($level, 'OpenTelemetry: ' . $message . ($repeats > 0 ? " ({$repeats} more like it since the last time)" : ''), $context);
    }
}
