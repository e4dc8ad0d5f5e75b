<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The figure of one case in one run of the suite: one line of the --json file.
 */
final readonly class Result
{
    public function __construct(
        public string $case,
        public string $unit,
        public float $median,
        public float $min,
        public float $max,
        public int $runs,
        public bool $jit,
    ) {}

    public static function of(BenchCase $case, Statistics $statistics, bool $jit): self
    {
        return new self($case->name(), $case->unit(), $statistics->median, $statistics->min, $statistics->max, $statistics->count, $jit);
    }

    public function toJson(): string
    {
        return json_encode([
            'case' => $this->case,
            'unit' => $this->unit,
            'median' => $this->median,
            'min' => $this->min,
            'max' => $this->max,
            'runs' => $this->runs,
            'jit' => $this->jit,
        ], \JSON_THROW_ON_ERROR | \JSON_PRESERVE_ZERO_FRACTION | \JSON_UNESCAPED_SLASHES);
    }

    public static function fromJson(string $line): self
    {
        try {
            $data = json_decode($line, true, 4, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new MalformedResults("Not a JSON object: {$line}", 0, $e);
        }
        if (!\is_array($data)) {
            throw new MalformedResults("Not a JSON object: {$line}");
        }
        $number = static function (string $key) use ($data, $line): float {
            $value = $data[$key] ?? null;
            if (!\is_int($value) && !\is_float($value)) {
                throw new MalformedResults("Key '{$key}' must be a number in: {$line}");
            }

            return (float) $value;
        };
        $case = $data['case'] ?? null;
        $unit = $data['unit'] ?? null;
        $runs = $data['runs'] ?? null;
        $jit = $data['jit'] ?? null;
        if (!\is_string($case) || !\is_string($unit) || !\is_int($runs) || !\is_bool($jit)) {
            throw new MalformedResults("Keys case and unit (strings), runs (int) and jit (bool) are required in: {$line}");
        }

        return new self($case, $unit, $number('median'), $number('min'), $number('max'), $runs, $jit);
    }

    /**
     * Reads a --json file (one result per line).
     *
     * @return array<string, self> by case name, in file order
     */
    public static function readFile(string $path): array
    {
        $contents = @file_get_contents($path);
        if ($contents === false) {
            throw new MalformedResults("Cannot read the results file {$path}.");
        }
        $results = [];
        foreach (preg_split('/\R/', $contents) ?: [] as $line) {
            if (trim($line) !== '') {
                $result = self::fromJson($line);
                $results[$result->case] = $result;
            }
        }

        return $results;
    }

    /**
     * The figure as operations per second, so that it can be compared with baseline.loop: rates
     * as they are, durations in microseconds inverted; null for anything else (bytes).
     */
    public function opsPerSecond(): ?float
    {
        return Units::opsPerSecond($this->median, $this->unit);
    }
}
