<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * The fault campaign could not run (a server did not start, the server under test never came
 * back): the message says which and what to check.
 */
final class ChaosException extends \RuntimeException {}
