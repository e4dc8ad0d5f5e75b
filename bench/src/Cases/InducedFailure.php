<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

/**
 * Thrown on purpose by the child of supervisor.restart.
 */
final class InducedFailure extends \RuntimeException {}
