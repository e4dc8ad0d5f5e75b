<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * Runs the selected cases: warm-ups, then the measured runs, each followed by the case's own
 * check. The median of the measured runs is the figure.
 *
 * The baseline's runs are split: half before every other case, half after them. A burst of load
 * from elsewhere on the machine then moves only some of its samples, and the ratios of the other
 * cases to it stay readable.
 */
final class Runner
{
    private readonly bool $interactive;

    /**
     * @param resource $progress where the progress line goes (STDERR)
     */
    public function __construct(
        private readonly Options $options,
        private readonly mixed $progress,
        private readonly string $baseline = Suite::BASELINE,
    ) {
        $this->interactive = stream_isatty($progress);
    }

    /**
     * @param list<BenchCase>               $cases
     * @param (\Closure(Result): void)|null $onResult called as soon as a case has its figure
     */
    public function run(array $cases, ?\Closure $onResult = null): Outcome
    {
        $selected = array_values(array_filter($cases, fn(BenchCase $case): bool => $this->options->selects($case->name())));
        $jit = Environment::jitEnabled();
        $total = \count($selected);
        $runs = $this->options->runs;
        /** @var array<int, Result> $results by position in $selected */
        $results = [];
        $failures = [];
        $baselineAt = null;
        $baselineSamples = [];

        foreach ($selected as $index => $case) {
            $isBaseline = $case->name() === $this->baseline;
            try {
                $samples = $this->measure($case, $index, $total, $isBaseline ? intdiv($runs + 1, 2) : $runs);
            } catch (BenchmarkFailure $e) {
                $failures[$case->name()] = $e->getMessage();
                $this->progress(sprintf('[%d/%d] %s FAILED: %s', $index + 1, $total, $case->name(), $e->getMessage()), true);

                continue;
            }
            if ($isBaseline) {
                $baselineAt = $index;
                $baselineSamples = $samples;

                continue;
            }
            $results[$index] = $this->result($case, $index, $total, $samples, $jit, $onResult);
        }

        if ($baselineAt !== null) {
            $case = $selected[$baselineAt];
            try {
                $samples = [...$baselineSamples, ...$this->measure($case, $baselineAt, $total, $runs - \count($baselineSamples), \count($baselineSamples), false)];
                $results[$baselineAt] = $this->result($case, $baselineAt, $total, $samples, $jit, $onResult);
            } catch (BenchmarkFailure $e) {
                $failures[$case->name()] = $e->getMessage();
                $this->progress(sprintf('[%d/%d] %s FAILED: %s', $baselineAt + 1, $total, $case->name(), $e->getMessage()), true);
            }
        }
        if ($this->interactive) {
            fwrite($this->progress, "\r\033[K");
        }
        ksort($results);

        return new Outcome(array_values($results), $failures);
    }

    /**
     * Warm-ups (unless $warmUp is false), then $count measured runs numbered from $done + 1.
     *
     * @return list<float>
     */
    private function measure(BenchCase $case, int $index, int $total, int $count, int $done = 0, bool $warmUp = true): array
    {
        $position = sprintf('[%d/%d] %s', $index + 1, $total, $case->name());
        for ($i = 1; $warmUp && $i <= $this->options->warmups; ++$i) {
            $this->progress("{$position} warm-up {$i}/{$this->options->warmups}");
            $this->once($case);
        }
        $samples = [];
        for ($i = $done + 1; $i <= $done + $count; ++$i) {
            $this->progress("{$position} run {$i}/{$this->options->runs}");
            $samples[] = $this->once($case);
        }

        return $samples;
    }

    /**
     * @param list<float>                   $samples
     * @param (\Closure(Result): void)|null $onResult
     */
    private function result(BenchCase $case, int $index, int $total, array $samples, bool $jit, ?\Closure $onResult): Result
    {
        $result = Result::of($case, Statistics::of($samples), $jit);
        $this->progress(sprintf('[%d/%d] %s %s', $index + 1, $total, $case->name(), Units::format($result->median, $result->unit)), true);
        if ($onResult !== null) {
            $onResult($result);
        }

        return $result;
    }

    private function once(BenchCase $case): float
    {
        gc_collect_cycles();
        $figure = $case->run($this->options->scale);
        $case->verify();
        if (!is_finite($figure) || $figure <= 0.0) {
            throw new BenchmarkFailure("{$case->name()}: measured {$figure} {$case->unit()}, which is not a positive figure.");
        }

        return $figure;
    }

    private function progress(string $line, bool $final = false): void
    {
        if ($this->interactive) {
            fwrite($this->progress, "\r\033[K" . $line . ($final ? "\n" : ''));
        } else {
            fwrite($this->progress, $line . "\n");
        }
    }
}
