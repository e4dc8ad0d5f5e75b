<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * A results file (JSON lines written by run.php --json) cannot be read back.
 */
final class MalformedResults extends \RuntimeException {}
