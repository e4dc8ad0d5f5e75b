<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * Median, minimum and maximum of the samples of one case.
 */
final readonly class Statistics
{
    private function __construct(
        public float $median,
        public float $min,
        public float $max,
        public int $count,
    ) {}

    /**
     * @param list<float> $samples
     */
    public static function of(array $samples): self
    {
        $count = \count($samples);
        if ($count === 0) {
            throw new \InvalidArgumentException('Statistics need at least one sample.');
        }
        foreach ($samples as $sample) {
            if (!is_finite($sample)) {
                throw new \InvalidArgumentException("Statistics need finite samples, got {$sample}.");
            }
        }
        sort($samples);
        $middle = intdiv($count, 2);
        $median = $count % 2 === 1 ? $samples[$middle] : ($samples[$middle - 1] + $samples[$middle]) / 2;

        return new self($median, $samples[0], $samples[$count - 1], $count);
    }

    /**
     * (max - min) / median: how far apart the runs were, relative to the figure.
     */
    public function spread(): float
    {
        return self::spreadOf($this->median, $this->min, $this->max);
    }

    public static function spreadOf(float $median, float $min, float $max): float
    {
        return $median == 0.0 ? 0.0 : ($max - $min) / abs($median);
    }
}
