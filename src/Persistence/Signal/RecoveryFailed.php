<?php

declare(strict_types=1);

namespace Nexus\Persistence\Signal;

use Nexus\Actor\Signal\Signal;

/**
 * A persistent actor could not rebuild its state: $error is the store's error (or the decoding
 * or event handler failure). The commands it had stashed fail with RecoveryFailedException; it
 * tries again after a backoff.
 */
final readonly class RecoveryFailed implements Signal
{
    public function __construct(public \Throwable $error) {}
}
