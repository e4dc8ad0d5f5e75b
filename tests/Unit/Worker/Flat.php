<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

/**
 * A readonly message class of scalars only: nothing in it can be an object.
 */
final readonly class Flat
{
    public function __construct(public int $n, public ?string $label) {}
}
