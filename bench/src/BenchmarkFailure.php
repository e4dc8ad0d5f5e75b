<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * A case did not do the work it measures (lost messages, actors still alive, wrong state): its
 * figure would be meaningless.
 */
final class BenchmarkFailure extends \RuntimeException {}
