<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * One response as the load generator sees it.
 */
final readonly class ReadResponse
{
    public function __construct(
        public int $status,
        public string $body,
        public bool $close,
    ) {}
}
