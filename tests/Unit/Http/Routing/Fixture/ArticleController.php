<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing\Fixture;

use Nexus\Http\Routing\Route;

#[Route('/articles')]
final class ArticleController
{
    /** @return list<string> */
    #[Route('', name: 'articles')]
    public function index(): array
    {
        return ['first'];
    }

    #[Route('/{id:\d+}', methods: ['GET'], name: 'article')]
    public function show(int $id): string
    {
        return "article {$id}";
    }

    #[Route('/{id:\d+}', methods: ['PUT', 'patch'])]
    #[Route('/{id:\d+}/edit', methods: ['POST'])]
    public function update(int $id): string
    {
        return "updated {$id}";
    }

    public function notARoute(): string
    {
        return 'no';
    }
}
