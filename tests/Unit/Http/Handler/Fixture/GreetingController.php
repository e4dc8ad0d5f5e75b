<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler\Fixture;

/** A controller that needs a service in its constructor, so only the container can build it. */
final class GreetingController
{
    public static int $built = 0;

    public function __construct(private readonly Greeter $greeter)
    {
        ++self::$built;
    }

    public function greet(string $name): string
    {
        return $this->greeter->greet($name);
    }
}
