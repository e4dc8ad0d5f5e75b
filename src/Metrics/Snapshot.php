<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * The shape of a metrics snapshot (Registry::snapshot(), SnapshotMerger::merge()) and a check
 * for snapshots that arrive from elsewhere (another process): validFamily() says whether a
 * decoded family has exactly the expected shape, so a malformed one is skipped, never rendered.
 *
 * @phpstan-type Row array{0: list<string>, 1: int|float}|array{0: list<string>, 1: list<int>, 2: float}
 * @phpstan-type Family array{type: string, help: string, labels: list<string>, aggregation: string, limit: int, series: list<Row>, overflowLabels: list<string>, overflow: list<Row>, buckets?: list<float>}
 * @phpstan-type Families array<string, Family>
 */
final class Snapshot
{
    /**
     * @phpstan-assert-if-true Family $family
     */
    public static function validFamily(mixed $family): bool
    {
        if (!\is_array($family)
            || !\is_string($family['type'] ?? null) || MetricType::tryFrom($family['type']) === null
            || !\is_string($family['help'] ?? null)
            || !\is_string($family['aggregation'] ?? null) || Aggregation::tryFrom($family['aggregation']) === null
            || !\is_int($family['limit'] ?? null)
            || !self::stringList($family['labels'] ?? null)
            || !self::stringList($family['overflowLabels'] ?? null)
            || !\is_array($family['series'] ?? null) || !array_is_list($family['series'])
            || !\is_array($family['overflow'] ?? null) || !array_is_list($family['overflow'])) {
            return false;
        }
        $histogram = $family['type'] === MetricType::Histogram->value;
        $buckets = null;
        if ($histogram) {
            $buckets = $family['buckets'] ?? null;
            if (!\is_array($buckets) || !array_is_list($buckets) || $buckets === []) {
                return false;
            }
            foreach ($buckets as $bound) {
                if (!\is_float($bound)) {
                    return false;
                }
            }
        }
        foreach ([[$family['series'], \count($family['labels'])], [$family['overflow'], \count($family['overflowLabels'])]] as [$rows, $labelCount]) {
            foreach ($rows as $row) {
                if (!self::validRow($row, $labelCount, $buckets === null ? null : \count($buckets) + 1)) {
                    return false;
                }
            }
        }

        return true;
    }

    private static function validRow(mixed $row, int $labelCount, ?int $slots): bool
    {
        if (!\is_array($row) || !array_is_list($row) || !self::stringList($row[0] ?? null) || \count($row[0]) !== $labelCount) {
            return false;
        }
        if ($slots === null) {
            return \count($row) === 2 && (\is_int($row[1]) || \is_float($row[1]));
        }
        if (\count($row) !== 3 || !\is_array($row[1]) || !array_is_list($row[1]) || \count($row[1]) !== $slots || !\is_float($row[2])) {
            return false;
        }
        foreach ($row[1] as $count) {
            if (!\is_int($count) || $count < 0) {
                return false;
            }
        }

        return true;
    }

    /**
     * @phpstan-assert-if-true list<string> $list
     */
    private static function stringList(mixed $list): bool
    {
        if (!\is_array($list) || !array_is_list($list)) {
            return false;
        }
        foreach ($list as $item) {
            if (!\is_string($item)) {
                return false;
            }
        }

        return true;
    }
}
