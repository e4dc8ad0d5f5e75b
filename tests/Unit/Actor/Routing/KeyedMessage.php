<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\Routing\ConsistentHashable;

final class KeyedMessage implements ConsistentHashable
{
    public function __construct(
        public readonly string|int $key,
        public readonly mixed $payload = null,
    ) {}

    public function hashKey(): string|int
    {
        return $this->key;
    }
}
