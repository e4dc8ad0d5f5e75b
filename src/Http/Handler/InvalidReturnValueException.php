<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/** A handler returned something that cannot become a response; the request fails with 500. */
final class InvalidReturnValueException extends \RuntimeException {}
