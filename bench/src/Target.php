<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The figure a case must reach (median, tracing JIT): at least or at most a value in the case's
 * unit, and optionally at least a ratio to baseline.loop.
 */
final readonly class Target
{
    private function __construct(
        public float $value,
        public bool $atLeast,
        public ?float $minBaselineRatio,
    ) {}

    public static function atLeast(float $value, ?float $minBaselineRatio = null): self
    {
        return new self($value, true, $minBaselineRatio);
    }

    public static function atMost(float $value): self
    {
        return new self($value, false, null);
    }

    /**
     * @param float|null $ratio the case's ratio to baseline.loop, when known
     */
    public function isMet(float $median, ?float $ratio): bool
    {
        $valueMet = $this->atLeast ? $median >= $this->value : $median <= $this->value;
        if ($this->minBaselineRatio === null) {
            return $valueMet;
        }

        return $valueMet && $ratio !== null && $ratio >= $this->minBaselineRatio;
    }

    public function describe(string $unit): string
    {
        $text = ($this->atLeast ? '≥ ' : '≤ ') . Units::format($this->value, $unit);
        if ($this->minBaselineRatio !== null) {
            $text .= ', ≥ ' . Units::ratio($this->minBaselineRatio) . ' baseline';
        }

        return $text;
    }
}
