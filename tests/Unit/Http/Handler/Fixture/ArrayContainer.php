<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

use Psr\Container\ContainerInterface;
use Psr\Container\NotFoundExceptionInterface;

/** A minimal PSR-11 container for tests: id => factory closure, built on each get(). */
final class ArrayContainer implements ContainerInterface
{
    public int $gets = 0;

    /** @param array<string, \Closure(): mixed> $factories */
    public function __construct(private readonly array $factories) {}

    public function get(string $id): mixed
    {
        ++$this->gets;
        $factory = $this->factories[$id] ?? throw new class ("No service {$id}.") extends \RuntimeException implements NotFoundExceptionInterface {};

        return $factory();
    }

    public function has(string $id): bool
    {
        return isset($this->factories[$id]);
    }
}
