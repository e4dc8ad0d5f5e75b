<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * Renders a snapshot (Registry::snapshot() or SnapshotMerger::merge()) in the Prometheus text
 * exposition format 0.0.4: per family a `# HELP` and a `# TYPE` line, then one line per sample;
 * histograms as cumulative `_bucket{le="..."}` lines ending with le="+Inf", then `_sum` and
 * `_count`. Help text escapes backslash and line feed; label values escape backslash, double
 * quote and line feed. Numbers are written as integers when they are whole, else with the fewest
 * digits that read back to the same float; NaN, +Inf and -Inf as Prometheus spells them.
 *
 * @phpstan-import-type Family from Snapshot
 * @phpstan-import-type Families from Snapshot
 */
final class PrometheusText
{
    public const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
    private const OVERFLOW = 'otel_metric_overflow="true"';

    /**
     * @param array{families: Families} $snapshot
     */
    public static function render(array $snapshot): string
    {
        $out = '';
        foreach ($snapshot['families'] as $name => $family) {
            $out .= self::family($name, $family);
        }

        return $out;
    }

    /**
     * @param Family $family
     */
    public static function family(string $name, array $family): string
    {
        $out = '# HELP ' . $name . ' ' . strtr($family['help'], ['\\' => '\\\\', "\n" => '\n']) . "\n"
            . '# TYPE ' . $name . ' ' . $family['type'] . "\n";
        $bounds = $family['buckets'] ?? [];
        foreach ([[$family['series'], $family['labels'], ''], [$family['overflow'], $family['overflowLabels'], self::OVERFLOW]] as [$rows, $labelNames, $extra]) {
            foreach ($rows as $row) {
                $labels = self::labels($labelNames, $row[0], $extra);
                $value = $row[1];
                if (!\is_array($value)) {
                    $out .= $name . ($labels === '' ? '' : '{' . $labels . '}') . ' ' . self::number($value) . "\n";
                    continue;
                }
                $prefix = $labels === '' ? '' : $labels . ',';
                $cumulative = 0;
                foreach ($value as $i => $count) {
                    $cumulative += $count;
                    $le = isset($bounds[$i]) ? self::number($bounds[$i]) : '+Inf';
                    $out .= $name . '_bucket{' . $prefix . 'le="' . $le . '"} ' . $cumulative . "\n";
                }
                $braces = $labels === '' ? '' : '{' . $labels . '}';
                $out .= $name . '_sum' . $braces . ' ' . self::number($row[2] ?? 0.0) . "\n"
                    . $name . '_count' . $braces . ' ' . $cumulative . "\n";
            }
        }

        return $out;
    }

    /**
     * A sample value as the text format writes it.
     */
    public static function number(int|float $value): string
    {
        if (\is_int($value)) {
            return (string) $value;
        }
        if (is_nan($value)) {
            return 'NaN';
        }
        if (is_infinite($value)) {
            return $value > 0 ? '+Inf' : '-Inf';
        }
        if ($value === floor($value) && abs($value) < 1e15) {
            return \sprintf('%.0f', $value + 0.0) === '-0' ? '0' : \sprintf('%.0f', $value);
        }
        $short = \sprintf('%.15g', $value);

        return (float) $short === $value ? $short : \sprintf('%.17g', $value);
    }

    public static function escapeLabelValue(string $value): string
    {
        return strtr($value, ['\\' => '\\\\', '"' => '\"', "\n" => '\n']);
    }

    /**
     * @param list<string> $names
     * @param list<string> $values
     */
    private static function labels(array $names, array $values, string $extra): string
    {
        $pairs = [];
        foreach ($names as $i => $label) {
            $pairs[] = $label . '="' . self::escapeLabelValue($values[$i] ?? '') . '"';
        }
        if ($extra !== '') {
            $pairs[] = $extra;
        }

        return implode(',', $pairs);
    }
}
