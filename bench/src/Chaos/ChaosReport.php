<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * The campaign's result as a table for the terminal and as the marked section of
 * docs/reliability.md (with the timeline chart beside it).
 */
final class ChaosReport
{
    public const START = '<!-- chaos:start -->';
    public const END = '<!-- chaos:end -->';

    /**
     * @param array<string, mixed> $result what Campaign::run() returned
     */
    public function __construct(private readonly array $result) {}

    public function lost(): int
    {
        return \is_int($this->result['lost'] ?? null) ? $this->result['lost'] : \PHP_INT_MAX;
    }

    public function table(): string
    {
        /** @var array<string, array{sent: int, acked: int, failed: int, unknown: int}> $operations */
        $operations = $this->result['operations'];
        /** @var array<string, array{acknowledged: int, lost: int, extra: int, note: string}> $verdict */
        $verdict = $this->result['verdict'];
        $rows = [['operation', 'sent', 'acknowledged', 'failed (answered)', 'unknown', 'lost (must be 0)', 'counted twice', 'checked against']];
        foreach ($verdict as $kind => $check) {
            $totals = $operations[$kind];
            $rows[] = [$kind, (string) $totals['sent'], (string) $totals['acked'], (string) $totals['failed'], (string) $totals['unknown'], (string) $check['lost'], (string) $check['extra'], $check['note']];
        }
        $widths = [];
        foreach ($rows as $row) {
            foreach ($row as $i => $cell) {
                $widths[$i] = max($widths[$i] ?? 0, mb_strlen($cell));
            }
        }
        $lines = [];
        foreach ($rows as $n => $row) {
            $cells = [];
            foreach ($row as $i => $cell) {
                $cells[] = $i === 0 || $i === 7 ? str_pad($cell, $widths[$i]) : str_pad($cell, $widths[$i], ' ', \STR_PAD_LEFT);
            }
            $lines[] = '| ' . implode(' | ', $cells) . ' |';
            if ($n === 0) {
                $lines[] = '|' . implode('|', array_map(static fn(int $w): string => str_repeat('-', $w + 2), $widths)) . '|';
            }
        }

        return implode("\n", $lines) . "\n\n" . implode("\n", $this->facts()) . "\n";
    }

    /**
     * @return list<string>
     */
    public function facts(): array
    {
        /** @var array<string, int> $faults */
        $faults = $this->result['faults'];
        $injected = [];
        foreach ($faults as $kind => $count) {
            $injected[] = FaultKind::from($kind)->label() . " x{$count}";
        }
        /** @var array<int, int> $statuses */
        $statuses = $this->result['failed_statuses'];
        $failed = [];
        foreach ($statuses as $status => $count) {
            $failed[] = "{$status} x{$count}";
        }
        /** @var array{before: array{rss: int, descriptors: int, processes: int}, after: array{rss: int, descriptors: int, processes: int}} $resources */
        $resources = $this->result['resources'];
        /** @var list<string> $skipped */
        $skipped = $this->result['skipped'];
        /** @var array<string, list<string>> $reasons */
        $reasons = $this->result['unknown_reasons'];
        $unknown = [];
        foreach ($reasons as $kind => $list) {
            foreach (array_count_values($list) as $reason => $count) {
                $unknown[] = "{$kind}: {$reason}";
            }
        }
        $facts = [
            '- Faults injected: ' . ($injected === [] ? 'none' : implode('; ', $injected)) . '.',
            '- Failures answered to clients, by status: ' . ($failed === [] ? 'none' : implode(', ', $failed)) . '.',
            \sprintf(
                '- Server (master and workers): RSS %.1f MiB before the first fault, %.1f MiB after the campaign; open descriptors %d before, %d after; processes %d before, %d after.',
                $resources['before']['rss'] / 1048576,
                $resources['after']['rss'] / 1048576,
                $resources['before']['descriptors'],
                $resources['after']['descriptors'],
                $resources['before']['processes'],
                $resources['after']['processes'],
            ),
        ];
        if ($unknown !== []) {
            $facts[] = '- Examples of unknown outcomes: ' . implode('; ', \array_slice($unknown, 0, 4)) . '.';
        }
        /** @var array<string, int> $problems */
        $problems = $this->result['server_problems'] ?? [];
        if ($problems !== []) {
            $facts[] = '- What the server logged (errors and warnings, by kind):';
            foreach ($problems as $problem => $count) {
                $facts[] = \sprintf('  - %dx %s', $count, mb_strimwidth(trim($problem), 0, 220, '…'));
            }
        }
        foreach ($skipped as $reason) {
            $facts[] = "- Left out: {$reason}.";
        }

        return $facts;
    }

    /**
     * The marked section of docs/reliability.md for this run.
     */
    public function section(string $command, string $date, string $chartPath): string
    {
        /** @var array{duration: float, clients: int, counters: int, seed: int, workers: int} $settings */
        $settings = $this->result['settings'];

        return self::START . "\n"
            . "Last full run: `{$command}` on {$date}; {$settings['duration']} s of load, {$settings['workers']} workers, "
            . "{$settings['clients']} clients, {$settings['counters']} counters, seed {$settings['seed']}.\n\n"
            . $this->table() . "\n"
            . "![Operations per second through the campaign, with each fault marked]({$chartPath})\n"
            . self::END;
    }

    public static function replaceSection(string $document, string $section): string
    {
        $start = strpos($document, self::START);
        $end = strpos($document, self::END);
        if ($start === false || $end === false || $end < $start) {
            throw new \UnexpectedValueException('The markers ' . self::START . ' and ' . self::END . ' are missing.');
        }

        return substr($document, 0, $start) . $section . substr($document, $end + \strlen(self::END));
    }

    public function chart(): string
    {
        /** @var array<int, array{int, int, int}> $timeline */
        $timeline = $this->result['timeline'];
        /** @var list<array{at: float, fault: string, detail: string}> $events */
        $events = $this->result['events'];

        return SvgTimeline::render('make chaos: outcomes per second, faults marked below', $timeline, $events);
    }
}
