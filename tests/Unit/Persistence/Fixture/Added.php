<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

final readonly class Added
{
    public function __construct(public int $amount, public string $note = '') {}
}
