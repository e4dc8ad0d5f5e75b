<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The files a benchmark run writes: its section of docs/performance.md and its chart.
 */
final class ReportFiles
{
    /**
     * $document with what lies between the markers $start and $end replaced by $section; with
     * neither marker, $heading (if any), the markers and the section are appended at the end.
     *
     * @throws \UnexpectedValueException when only one marker is there, or they are out of order
     */
    public static function replaceMarked(string $document, string $start, string $end, string $section, string $heading = ''): string
    {
        $from = strpos($document, $start);
        $to = strpos($document, $end);
        if ($from === false && $to === false) {
            return rtrim($document, "\n") . "\n\n" . ($heading === '' ? '' : "{$heading}\n\n") . $start . "\n" . $section . $end . "\n";
        }
        if ($from === false || $to === false || $to < $from) {
            throw new \UnexpectedValueException("The document has only one of the markers {$start} and {$end}, or has them out of order; fix the markers by hand.");
        }

        return substr($document, 0, $from + \strlen($start)) . "\n" . $section . substr($document, $to);
    }

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
