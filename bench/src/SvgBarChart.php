<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * A standalone SVG 1.1 horizontal bar chart: one group of bars per row (one bar per series), a
 * value label at the end of each bar, an optional dashed marker per row and a note column on the
 * right. Rows have different units, so each row is scaled to its own largest value or marker.
 */
final class SvgBarChart
{
    private const WIDTH = 1160;
    private const LABEL_WIDTH = 290;
    private const BAR_AREA = 580;
    /** Room kept after the longest bar for its value label. */
    private const LABEL_ROOM = 110;
    private const BAR_HEIGHT = 13;
    private const ROW_GAP = 12;
    private const TOP = 78;
    private const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';
    private const COLOURS = ['#2f6fb5', '#9ab8de', '#6aa84f', '#e69138'];

    /**
     * @param list<string> $series    the name of each bar in a row, in order (the legend)
     * @param string       $noteTitle the heading of the note column
     */
    public function __construct(
        private readonly string $title,
        private readonly array $series,
        private readonly string $noteTitle = '',
        private readonly string $caption = '',
    ) {
        if ($series === []) {
            throw new \InvalidArgumentException('A chart needs at least one series.');
        }
    }

    /**
     * @param list<ChartRow> $rows
     */
    public function render(array $rows): string
    {
        $seriesCount = \count($this->series);
        $rowHeight = max(32, $seriesCount * (self::BAR_HEIGHT + 2)) + self::ROW_GAP;
        $height = self::TOP + \count($rows) * $rowHeight + ($this->caption === '' ? 16 : 40);
        $barMax = self::BAR_AREA - self::LABEL_ROOM;
        $noteX = self::LABEL_WIDTH + self::BAR_AREA + 16;

        $out = [];
        $out[] = '<?xml version="1.0" encoding="UTF-8"?>';
        $out[] = sprintf(
            '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="12">',
            self::WIDTH,
            $height,
            self::WIDTH,
            $height,
            self::FONT,
        );
        $out[] = '<title>' . self::escape($this->title) . '</title>';
        $out[] = sprintf('<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>', self::WIDTH, $height);
        $out[] = sprintf('<text x="16" y="26" font-size="17" font-weight="bold" fill="#222222">%s</text>', self::escape($this->title));

        $legendX = 16;
        foreach ($this->series as $i => $name) {
            $out[] = sprintf('<rect x="%d" y="40" width="14" height="12" fill="%s"/>', $legendX, self::colour($i));
            $out[] = sprintf('<text x="%d" y="50" fill="#333333">%s</text>', $legendX + 20, self::escape($name));
            $legendX += 30 + (int) ceil(mb_strlen($name) * 7.2);
        }
        if (array_filter($rows, static fn(ChartRow $row): bool => $row->marker !== null) !== []) {
            $out[] = sprintf(
                '<line x1="%d" y1="40" x2="%d" y2="52" stroke="#444444" stroke-width="1.5" stroke-dasharray="3,2"/>',
                $legendX,
                $legendX,
            );
            $out[] = sprintf('<text x="%d" y="50" fill="#333333">target</text>', $legendX + 8);
        }
        if ($this->noteTitle !== '') {
            $out[] = sprintf('<text x="%d" y="68" font-weight="bold" fill="#333333">%s</text>', $noteX, self::escape($this->noteTitle));
        }

        foreach ($rows as $r => $row) {
            $y = self::TOP + $r * $rowHeight;
            if ($r % 2 === 0) {
                $out[] = sprintf('<rect x="8" y="%d" width="%d" height="%d" fill="#f4f6f9"/>', $y - 4, self::WIDTH - 16, $rowHeight - 4);
            }
            $out[] = sprintf('<text x="16" y="%d" fill="#222222">%s</text>', $y + 11, self::escape($row->label));
            $out[] = sprintf('<text x="16" y="%d" font-size="10" fill="#666666">%s</text>', $y + 25, self::escape($row->sublabel));

            $scale = $row->marker ?? 0.0;
            foreach ($row->values as $value) {
                $scale = max($scale, $value ?? 0.0);
            }
            $labels = [];
            foreach ($row->values as $i => $value) {
                $barY = $y + $i * (self::BAR_HEIGHT + 2);
                if ($value === null) {
                    $labels[] = sprintf('<text x="%d" y="%d" fill="#999999">n/a</text>', self::LABEL_WIDTH + 4, $barY + 10);

                    continue;
                }
                $length = $scale > 0.0 ? max(1.0, $value / $scale * $barMax) : 1.0;
                $out[] = sprintf(
                    '<rect class="bar series-%d" x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>',
                    $i,
                    self::LABEL_WIDTH,
                    $barY,
                    $length,
                    self::BAR_HEIGHT,
                    self::colour($i),
                );
                $labels[] = sprintf(
                    '<text x="%.1f" y="%d" font-size="11" fill="#222222">%s</text>',
                    self::LABEL_WIDTH + $length + 5,
                    $barY + 10,
                    self::escape($row->valueLabels[$i]),
                );
            }
            if ($row->marker !== null && $scale > 0.0) {
                $x = self::LABEL_WIDTH + $row->marker / $scale * $barMax;
                $out[] = sprintf(
                    '<line class="marker" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#444444" stroke-width="1.5" stroke-dasharray="3,2"/>',
                    $x,
                    $y - 3,
                    $x,
                    $y + $seriesCount * (self::BAR_HEIGHT + 2) + 1,
                );
            }
            // Value labels last, so that a marker never hides one.
            array_push($out, ...$labels);
            $okColour = match ($row->ok) {
                true => '#2e7d32',
                false => '#c62828',
                null => '#333333',
            };
            if ($row->note !== '') {
                $out[] = sprintf(
                    '<text x="%d" y="%d" fill="%s">%s</text>',
                    $noteX,
                    $y + 11,
                    $row->detail === '' ? $okColour : '#333333',
                    self::escape($row->note),
                );
            }
            if ($row->detail !== '') {
                $out[] = sprintf('<text x="%d" y="%d" font-size="10" fill="%s">%s</text>', $noteX, $y + 25, $okColour, self::escape($row->detail));
            }
        }
        if ($this->caption !== '') {
            $out[] = sprintf('<text x="16" y="%d" font-size="11" fill="#555555">%s</text>', $height - 14, self::escape($this->caption));
        }
        $out[] = '</svg>';

        return implode("\n", $out) . "\n";
    }

    private static function colour(int $series): string
    {
        return self::COLOURS[$series % \count(self::COLOURS)];
    }

    private static function escape(string $text): string
    {
        return htmlspecialchars($text, \ENT_XML1 | \ENT_QUOTES | \ENT_SUBSTITUTE, 'UTF-8');
    }
}
