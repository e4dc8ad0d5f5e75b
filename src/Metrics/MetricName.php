<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\MetricDefinitionException;

/**
 * Turns an OpenTelemetry-style instrument name and unit into a Prometheus metric name, following
 * the OpenTelemetry "Prometheus and OpenMetrics compatibility" rules:
 *
 * - characters outside [a-zA-Z0-9_:] become `_`, repeated underscores collapse, leading and
 *   trailing ones are dropped: `http.server.request.duration` -> `http_server_request_duration`;
 * - a UCUM unit is appended in Prometheus words unless the name already ends with it:
 *   `s` -> `_seconds`, `ms` -> `_milliseconds`, `By` -> `_bytes`, `1` -> `_ratio` (gauges only);
 *   a unit in braces (`{request}`, `{actor}`) is an annotation and adds nothing;
 * - a counter gets `_total`.
 *
 * Label names (OTel attribute keys such as `http.request.method`) get the same character rule.
 */
final class MetricName
{
    /** UCUM units and the word Prometheus names carry for them. */
    private const UNITS = [
        's' => 'seconds',
        'ms' => 'milliseconds',
        'us' => 'microseconds',
        'ns' => 'nanoseconds',
        'min' => 'minutes',
        'h' => 'hours',
        'd' => 'days',
        'By' => 'bytes',
        'KiBy' => 'kibibytes',
        'MiBy' => 'mebibytes',
        'GiBy' => 'gibibytes',
        'KBy' => 'kilobytes',
        'MBy' => 'megabytes',
        'GBy' => 'gigabytes',
        'bit' => 'bits',
        '%' => 'percent',
        'Hz' => 'hertz',
        'Cel' => 'celsius',
    ];

    /** The longest instrument name OpenTelemetry allows. */
    public const MAX_LENGTH = 255;

    /**
     * @throws MetricDefinitionException when $name is not a valid instrument name
     */
    public static function prometheus(string $name, string $unit, MetricType $type): string
    {
        if (preg_match('/^[A-Za-z][A-Za-z0-9_.:\/-]*$/', $name) !== 1 || \strlen($name) > self::MAX_LENGTH) {
            throw new MetricDefinitionException(\sprintf(
                "Metric name '%s' is not valid: start with a letter, then letters, digits, '_', '.', '-', '/' or ':', %d characters at most (e.g. http.server.request.duration).",
                $name,
                self::MAX_LENGTH,
            ));
        }
        $result = self::sanitize($name);
        $suffix = self::unitSuffix($unit, $type);
        if ($suffix !== '' && !str_ends_with($result, '_' . $suffix)) {
            $result .= '_' . $suffix;
        }
        if ($type === MetricType::Counter && !str_ends_with($result, '_total')) {
            $result .= '_total';
        }

        return $result;
    }

    /**
     * @throws MetricDefinitionException when $name is not a valid attribute key
     */
    public static function label(string $name): string
    {
        if (preg_match('/^[A-Za-z_][A-Za-z0-9_.\/-]*$/', $name) !== 1 || \strlen($name) > self::MAX_LENGTH) {
            throw new MetricDefinitionException("Label name '{$name}' is not valid: start with a letter or '_', then letters, digits, '_', '.', '-' or '/' (e.g. http.request.method).");
        }
        $label = self::sanitize($name);
        if (str_starts_with($name, '__') || $label === '') {
            throw new MetricDefinitionException("Label name '{$name}' is reserved: names starting with '__' belong to Prometheus.");
        }

        return $label;
    }

    /**
     * The Prometheus word for a UCUM unit ('' for none or for an annotation in braces).
     *
     * @throws MetricDefinitionException when the unit has characters no name may carry
     */
    public static function unitSuffix(string $unit, MetricType $type): string
    {
        if ($unit === '' || (str_starts_with($unit, '{') && str_ends_with($unit, '}'))) {
            return '';
        }
        if ($unit === '1') {
            return $type === MetricType::Gauge ? 'ratio' : '';
        }
        if (isset(self::UNITS[$unit])) {
            return self::UNITS[$unit];
        }
        if (preg_match('#^([A-Za-z]+)/([A-Za-z]+)$#', $unit, $match) === 1) {
            // A rate such as By/s: bytes_per_second.
            return self::unitSuffix($match[1], $type) . '_per_' . rtrim(self::UNITS[$match[2]] ?? $match[2], 's');
        }
        $clean = trim((string) preg_replace('/[^A-Za-z0-9]+/', '_', $unit), '_');
        if ($clean === '') {
            throw new MetricDefinitionException("Unit '{$unit}' has nothing that can go into a metric name: use a UCUM unit such as s, By or {request}.");
        }

        return $clean;
    }

    private static function sanitize(string $name): string
    {
        return trim((string) preg_replace(['/[^A-Za-z0-9_:]/', '/__+/'], ['_', '_'], $name), '_');
    }
}
