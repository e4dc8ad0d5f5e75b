<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

final readonly class CreateUser
{
    public function __construct(
        public string $name,
        public int $age,
        public ?string $email = null,
        public float $score = 0.0,
        public bool $admin = false,
    ) {}
}
