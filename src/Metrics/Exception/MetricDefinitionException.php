<?php

declare(strict_types=1);

namespace Nexus\Metrics\Exception;

/**
 * A metric was declared wrongly: a name or label name that is not allowed, a reserved label,
 * buckets that are not increasing, or a name already taken by a different definition. Fix the
 * declaration; nothing was registered.
 */
final class MetricDefinitionException extends \InvalidArgumentException {}
