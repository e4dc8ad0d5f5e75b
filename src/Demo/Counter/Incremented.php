<?php

declare(strict_types=1);

namespace Nexus\Demo\Counter;

/**
 * The one event of a demo counter, stored under the logical name 'demo.counter.incremented'.
 */
final readonly class Incremented
{
    public function __construct() {}
}
