<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The plain-text table bench/run.php prints.
 */
final class Report
{
    /**
     * @param list<Result> $results
     */
    public static function table(array $results): string
    {
        $baseline = null;
        foreach ($results as $result) {
            if ($result->case === Suite::BASELINE) {
                $baseline = $result->opsPerSecond();
            }
        }
        $rows = [['case', 'median', 'min', 'max', 'spread', 'x baseline', 'runs', 'jit']];
        foreach ($results as $result) {
            $ops = $result->opsPerSecond();
            $rows[] = [
                $result->case,
                Units::format($result->median, $result->unit),
                Units::format($result->min, $result->unit),
                Units::format($result->max, $result->unit),
                sprintf('%.1f%%', Statistics::spreadOf($result->median, $result->min, $result->max) * 100),
                Units::ratio($baseline !== null && $ops !== null ? $ops / $baseline : null),
                (string) $result->runs,
                $result->jit ? 'yes' : 'no',
            ];
        }

        return self::render($rows);
    }

    /**
     * @param list<list<string>> $rows        the first is the header
     * @param int                $leftColumns how many leading columns are text (left-aligned); the others are figures
     */
    public static function render(array $rows, int $leftColumns = 1): string
    {
        $widths = [];
        foreach ($rows as $row) {
            foreach ($row as $i => $cell) {
                $widths[$i] = max($widths[$i] ?? 0, mb_strlen($cell));
            }
        }
        $lines = [];
        foreach ($rows as $r => $row) {
            $cells = [];
            foreach ($row as $i => $cell) {
                $pad = str_repeat(' ', $widths[$i] - mb_strlen($cell));
                $cells[] = $i < $leftColumns ? $cell . $pad : $pad . $cell;
            }
            $lines[] = rtrim(implode('  ', $cells));
            if ($r === 0) {
                $lines[] = implode('  ', array_map(static fn(int $width): string => str_repeat('-', $width), $widths));
            }
        }

        return implode("\n", $lines) . "\n";
    }
}
