<?php

declare(strict_types=1);

namespace Nexus\Metrics\Exception;

/**
 * A value a metric cannot take: a negative or NaN counter increment, or a NaN observation.
 * Nothing was recorded.
 */
final class InvalidValueException extends \InvalidArgumentException {}
