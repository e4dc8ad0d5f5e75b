<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

final readonly class Reset
{
    public function __construct() {}
}
