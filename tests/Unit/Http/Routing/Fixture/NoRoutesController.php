<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing\Fixture;

final class NoRoutesController
{
    public function nothing(): void {}
}
