<?php

declare(strict_types=1);

namespace Nexus\Persistence\Serialization;

use Nexus\Persistence\Store\PayloadFormat;

/**
 * One class of the TypeRegistry: its logical name, current version and format.
 *
 * @internal
 */
final readonly class Registration
{
    /**
     * @param class-string                          $class
     * @param \Closure|null $toArray   fn(object): array
     * @param \Closure|null $fromArray fn(array): object
     */
    public function __construct(
        public string $class,
        public string $name,
        public int $version,
        public PayloadFormat $format,
        public ?\Closure $toArray,
        public ?\Closure $fromArray,
    ) {}
}
