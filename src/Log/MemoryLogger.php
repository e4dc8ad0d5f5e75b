<?php

declare(strict_types=1);

namespace Nexus\Log;

use Psr\Log\AbstractLogger;

/**
 * Keeps every record in memory: for tests and for showing what a system logged.
 */
final class MemoryLogger extends AbstractLogger
{
    /** @var list<array{level: string, message: string, context: mixed[]}> */
    public array $records = [];

    /**
     * @param mixed[] $context
     */
    public function log($level, string|\Stringable $message, array $context = []): void
    {
        $this->records[] = [
            'level' => \is_string($level) ? $level : get_debug_type($level),
            'message' => Interpolator::interpolate((string) $message, $context),
            'context' => $context,
        ];
    }

    /**
     * @return list<string> the interpolated messages logged at $level
     */
    public function messages(string $level): array
    {
        $messages = [];
        foreach ($this->records as $record) {
            if ($record['level'] === $level) {
                $messages[] = $record['message'];
            }
        }

        return $messages;
    }
}
