<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

/**
 * A readonly message class: MessageClasses looks only into its properties that may hold objects.
 */
final readonly class Receipt
{
    /**
     * @param array<mixed> $lines
     */
    public function __construct(
        public string $id,
        public float $total,
        public array $lines,
        public mixed $note = null,
    ) {}
}
