<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * Reads the figures out of the text wrk 4.x prints:
 *
 *     Thread Stats   Avg      Stdev     Max   +/- Stdev
 *       Latency     1.23ms  345.67us   12.34ms   90.12%
 *     Latency Distribution
 *        99%    2.10ms
 *     400000 requests in 5.00s, 50.00MB read
 *     Socket errors: connect 0, read 12, write 0, timeout 3
 *     Non-2xx or 3xx responses: 17
 *     Requests/sec:  80000.00
 *
 * Times may be in us, ms, s, m or h; the result is in milliseconds.
 */
final class WrkOutputParser
{
    private const TIME = '(-?nan|-?inf|[0-9]+(?:\.[0-9]+)?)(us|ms|s|m|h)';

    public static function parse(string $output): WrkResult
    {
        if (preg_match('/^\s*Requests\/sec:\s+([0-9]+(?:\.[0-9]+)?)\s*$/m', $output, $rps) !== 1) {
            throw new MalformedWrkOutput('No "Requests/sec:" line in the wrk output: ' . self::excerpt($output));
        }
        if (preg_match('/^\s*Latency\s+' . self::TIME . '\s+' . self::TIME . '\s+' . self::TIME . '/m', $output, $latency) !== 1) {
            throw new MalformedWrkOutput('No "Latency avg stdev max" line in the wrk output: ' . self::excerpt($output));
        }
        if (preg_match('/^\s*([0-9]+) requests in /m', $output, $requests) !== 1) {
            throw new MalformedWrkOutput('No "N requests in" line in the wrk output: ' . self::excerpt($output));
        }
        $p99 = null;
        if (preg_match('/^\s*99(?:\.0+)?%\s+' . self::TIME . '\s*$/m', $output, $percentile) === 1) {
            $p99 = self::milliseconds($percentile[1], $percentile[2]);
        }
        $socket = [0, 0, 0, 0];
        if (preg_match('/Socket errors:\s*connect\s+([0-9]+),\s*read\s+([0-9]+),\s*write\s+([0-9]+),\s*timeout\s+([0-9]+)/', $output, $errors) === 1) {
            $socket = [(int) $errors[1], (int) $errors[2], (int) $errors[3], (int) $errors[4]];
        }
        $non2xx = 0;
        if (preg_match('/Non-2xx or 3xx responses:\s*([0-9]+)/', $output, $status) === 1) {
            $non2xx = (int) $status[1];
        }

        return new WrkResult(
            (float) $rps[1],
            self::milliseconds($latency[1], $latency[2]),
            self::milliseconds($latency[3], $latency[4]),
            self::milliseconds($latency[5], $latency[6]),
            $p99,
            (int) $requests[1],
            $socket[0],
            $socket[1],
            $socket[2],
            $socket[3],
            $non2xx,
        );
    }

    /**
     * A wrk time ("345.67us", "1.2s") in milliseconds; nan and inf (no samples) read as 0.
     */
    public static function milliseconds(string $number, string $unit): float
    {
        if (!is_numeric($number)) {
            return 0.0;
        }
        $value = (float) $number;

        return match ($unit) {
            'us' => $value / 1000.0,
            'ms' => $value,
            's' => $value * 1000.0,
            'm' => $value * 60_000.0,
            'h' => $value * 3_600_000.0,
            default => throw new MalformedWrkOutput("Unknown wrk time unit '{$unit}'."),
        };
    }

    private static function excerpt(string $output): string
    {
        $output = trim($output);

        return $output === '' ? '(empty)' : '"' . (\strlen($output) > 400 ? substr($output, 0, 400) . '…' : $output) . '"';
    }
}
