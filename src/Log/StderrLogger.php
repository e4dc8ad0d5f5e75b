<?php

declare(strict_types=1);

namespace Nexus\Log;

use Psr\Log\AbstractLogger;
use Psr\Log\InvalidArgumentException;
use Psr\Log\LogLevel;

/**
 * A plain PSR-3 logger writing one line per record to a stream (STDERR by default), with
 * {placeholder} interpolation and the class and message of an 'exception' in the context.
 */
final class StderrLogger extends AbstractLogger
{
    private const SEVERITY = [
        LogLevel::DEBUG => 0,
        LogLevel::INFO => 1,
        LogLevel::NOTICE => 2,
        LogLevel::WARNING => 3,
        LogLevel::ERROR => 4,
        LogLevel::CRITICAL => 5,
        LogLevel::ALERT => 6,
        LogLevel::EMERGENCY => 7,
    ];

    private readonly int $threshold;
    /** @var resource */
    private $stream;

    /**
     * @param resource|null $stream
     */
    public function __construct(string $minimumLevel = LogLevel::WARNING, $stream = null)
    {
        $this->threshold = self::SEVERITY[$minimumLevel] ?? throw new InvalidArgumentException("Unknown log level '{$minimumLevel}'.");
        $this->stream = $stream ?? \STDERR;
    }

    /**
     * @param mixed[] $context
     */
    public function log($level, string|\Stringable $message, array $context = []): void
    {
        $severity = \is_string($level) ? (self::SEVERITY[$level] ?? null) : null;
        if ($severity === null) {
            throw new InvalidArgumentException('Unknown log level ' . var_export($level, true) . '.');
        }
        if ($severity < $this->threshold) {
            return;
        }
        $line = date('Y-m-d\TH:i:sP') . ' ' . strtoupper($level) . ' ' . Interpolator::interpolate((string) $message, $context);
        $exception = $context['exception'] ?? null;
        if ($exception instanceof \Throwable) {
            $line .= ' [' . $exception::class . ': ' . $exception->getMessage() . ' at ' . $exception->getFile() . ':' . $exception->getLine() . ']';
        }
        fwrite($this->stream, $line . "\n");
    }
}
