<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/**
 * Binds a handler parameter to the request body: `string` gets it raw, `array` gets the decoded
 * JSON, a class gets a DTO built through its constructor from a JSON object. Invalid JSON -> 400;
 * missing or mistyped DTO fields -> 422 listing every problem.
 */
#[\Attribute(\Attribute::TARGET_PARAMETER)]
final readonly class Body {}
