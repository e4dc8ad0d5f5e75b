<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * A command-line option of a bench script is unknown or has an invalid value.
 */
final class UsageError extends \InvalidArgumentException {}
