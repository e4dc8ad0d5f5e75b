<?php

declare(strict_types=1);

namespace Nexus\TestKit;

/**
 * A probe did not receive what a test expected, in time.
 */
final class ExpectationFailedException extends \RuntimeException {}
