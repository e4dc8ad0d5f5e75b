<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing\Fixture;

use Nexus\Http\Routing\Route;

final class PrivateRouteController
{
    public function uses(): string
    {
        return $this->secret();
    }

    #[Route('/secret')]
    private function secret(): string
    {
        return 'secret';
    }
}
