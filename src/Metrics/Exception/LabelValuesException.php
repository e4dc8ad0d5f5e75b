<?php

declare(strict_types=1);

namespace Nexus\Metrics\Exception;

/**
 * labels() got the wrong number of values for the metric's declared label names, or a value that
 * is not valid UTF-8 or is longer than the limit. Pass one short UTF-8 value per declared label,
 * in the declared order (route templates and kinds, never ids).
 */
final class LabelValuesException extends \InvalidArgumentException {}
