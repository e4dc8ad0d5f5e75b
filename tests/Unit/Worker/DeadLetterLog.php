<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Actor\Event\DeadLetterReason;

/**
 * Dead letters seen by a test.
 */
final class DeadLetterLog
{
    /** @var list<array{mixed, DeadLetterReason}> */
    public array $messages = [];
}
