<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * One row of an SvgBarChart: a label and one bar per series.
 */
final readonly class ChartRow
{
    /**
     * @param list<float|null> $values      one per series; null draws no bar ("n/a")
     * @param list<string>     $valueLabels the text next to each bar
     * @param float|null       $marker      a value marked with a dashed line (the target)
     * @param string           $note        the text of the right-hand column
     * @param string           $detail      a second, smaller line under the note
     * @param bool|null        $ok          colours the detail (or the note when there is none): true green, false red
     */
    public function __construct(
        public string $label,
        public string $sublabel,
        public array $values,
        public array $valueLabels,
        public ?float $marker = null,
        public string $note = '',
        public string $detail = '',
        public ?bool $ok = null,
    ) {
        foreach ($values as $value) {
            if ($value !== null && (!is_finite($value) || $value < 0.0)) {
                throw new \InvalidArgumentException("Chart values must be finite and not negative, got {$value} in row '{$label}'.");
            }
        }
        if (\count($valueLabels) !== \count($values)) {
            throw new \InvalidArgumentException("Row '{$label}' has " . \count($values) . ' values but ' . \count($valueLabels) . ' value labels.');
        }
    }
}
