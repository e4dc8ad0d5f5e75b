<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The files a benchmark run writes: its section of docs/performance.md and its chart.
 */
final class ReportFiles
{
    /**
     * Rewrites $docPath with $update (which replaces the run's marked section) and writes the chart.
     *
     * @param \Closure(string): string $update the new document from the current one; throws
     *                                         \UnexpectedValueException when the markers are missing
     *
     * @return string|null what went wrong, or null when both files were written
     */
    public static function update(string $docPath, string $svgPath, \Closure $update, string $svg): ?string
    {
        $document = @file_get_contents($docPath);
        if (!\is_string($document)) {
            return "Cannot read {$docPath}.";
        }
        try {
            $updated = $update($document);
        } catch (\UnexpectedValueException $e) {
            return "{$docPath}: {$e->getMessage()}";
        }
        $svgDirectory = \dirname($svgPath);
        if ((!is_dir($svgDirectory) && !@mkdir($svgDirectory, 0o777, true))
            || @file_put_contents($svgPath, $svg) === false
            || @file_put_contents($docPath, $updated) === false) {
            return "Cannot write {$svgPath} or {$docPath}.";
        }

        return null;
    }
}
