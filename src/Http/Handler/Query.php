<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/**
 * Binds a handler parameter to a query parameter, cast to the parameter's type (int, float, bool,
 * string, array). Absent or empty: the default, else null if nullable, else 400.
 */
#[\Attribute(\Attribute::TARGET_PARAMETER)]
final readonly class Query
{
    /** @param string|null $name the query key; defaults to the PHP parameter's name */
    public function __construct(public ?string $name = null) {}
}
