<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/**
 * Declares a route on a public controller method, loaded with {@see RouteGroup::fromClass()}.
 * On the class itself, only the path counts: it prefixes the paths of all its methods.
 *
 *     #[Route('/users')]
 *     final class UserController {
 *         #[Route('/{id:\d+}', methods: ['GET'], name: 'user')]
 *         public function show(int $id): array { ... }
 *     }
 */
#[\Attribute(\Attribute::TARGET_METHOD | \Attribute::TARGET_CLASS | \Attribute::IS_REPEATABLE)]
final readonly class Route
{
    /** @param list<string> $methods */
    public function __construct(
        public string $path,
        public array $methods = ['GET'],
        public ?string $name = null,
    ) {}
}
