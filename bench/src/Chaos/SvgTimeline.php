<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * A standalone SVG 1.1 chart of a campaign over time: stacked bars per second (acknowledged,
 * failed with an answer, unknown) and a labelled vertical line at each fault.
 */
final class SvgTimeline
{
    private const WIDTH = 1160;
    private const LEFT = 60;
    private const RIGHT = 20;
    private const TOP = 60;
    private const PLOT_HEIGHT = 260;
    private const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';
    private const COLOURS = ['#2f6fb5', '#e69138', '#cc0000'];
    private const SERIES = ['acknowledged', 'failed (answered)', 'unknown (connection broke, timed out)'];

    /**
     * @param array<int, array{int, int, int}>                      $timeline outcomes by second
     * @param list<array{at: float, fault: string, detail: string}> $events
     */
    public static function render(string $title, array $timeline, array $events): string
    {
        $seconds = max(1, $timeline === [] ? 1 : max(array_keys($timeline)) + 1);
        $peak = 1;
        foreach ($timeline as $counts) {
            $peak = max($peak, array_sum($counts));
        }
        $faultRows = [];
        foreach ($events as $event) {
            $faultRows[$event['fault']] ??= true;
        }
        $height = self::TOP + self::PLOT_HEIGHT + 50 + 18 * \count($faultRows);
        $plotWidth = self::WIDTH - self::LEFT - self::RIGHT;
        $x = static fn(float $second): float => self::LEFT + $second / $seconds * $plotWidth;
        $y = static fn(float $value): float => self::TOP + self::PLOT_HEIGHT - $value / $peak * self::PLOT_HEIGHT;

        $out = [];
        $out[] = '<?xml version="1.0" encoding="UTF-8"?>';
        $out[] = \sprintf('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" viewBox="0 0 %1$d %2$d" font-family="%s" font-size="12">', self::WIDTH, $height, self::FONT);
        $out[] = \sprintf('<rect width="%d" height="%d" fill="#ffffff"/>', self::WIDTH, $height);
        $out[] = \sprintf('<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>', self::LEFT, htmlspecialchars($title, \ENT_XML1));
        foreach (self::SERIES as $i => $name) {
            $out[] = \sprintf('<rect x="%d" y="36" width="12" height="12" fill="%s"/><text x="%d" y="46">%s</text>', self::LEFT + $i * 260, self::COLOURS[$i], self::LEFT + $i * 260 + 18, $name);
        }
        foreach ([0, 0.5, 1] as $fraction) {
            $value = (int) round($peak * $fraction);
            $out[] = \sprintf('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dddddd"/><text x="%d" y="%.1f" text-anchor="end">%d/s</text>', self::LEFT, $y($value), self::WIDTH - self::RIGHT, $y($value), self::LEFT - 6, $y($value) + 4, $value);
        }
        $barWidth = max(1.0, $plotWidth / $seconds - 1);
        foreach ($timeline as $second => $counts) {
            $base = 0;
            foreach ($counts as $i => $count) {
                if ($count === 0) {
                    continue;
                }
                $out[] = \sprintf('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>', $x($second), $y($base + $count), $barWidth, $y($base) - $y($base + $count), self::COLOURS[$i]);
                $base += $count;
            }
        }
        $row = 0;
        $rows = [];
        foreach (array_keys($faultRows) as $fault) {
            $rows[$fault] = $row++;
        }
        foreach ($events as $event) {
            $at = $event['at'];
            $lineX = $x($at);
            $labelY = self::TOP + self::PLOT_HEIGHT + 40 + 18 * $rows[$event['fault']];
            $out[] = \sprintf('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#555555" stroke-dasharray="3,3"/>', $lineX, self::TOP, $lineX, $labelY - 10);
            $out[] = \sprintf('<circle cx="%.1f" cy="%d" r="3" fill="#555555"><title>%s</title></circle>', $lineX, $labelY - 4, htmlspecialchars($event['detail'], \ENT_XML1));
        }
        foreach ($rows as $fault => $index) {
            $out[] = \sprintf('<text x="%d" y="%d" text-anchor="end" font-size="11">%s</text>', self::LEFT - 6, self::TOP + self::PLOT_HEIGHT + 40 + 18 * $index, htmlspecialchars($fault, \ENT_XML1));
        }
        $out[] = \sprintf('<text x="%d" y="%d" text-anchor="middle">seconds since the load started</text>', self::LEFT + (int) ($plotWidth / 2), self::TOP + self::PLOT_HEIGHT + 18);
        $out[] = '</svg>';

        return implode("\n", $out) . "\n";
    }
}
