<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Chaos;

use Nexus\Bench\Chaos\FaultKind;
use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * The short fault campaign (make chaos SHORT=1): two workers under load while a worker is
 * killed, the pool reloads three times, slowloris and non-reading clients connect, one worker
 * floods another, and PostgreSQL and Redis restart. Nothing the clients were told was done may
 * be missing afterwards, and the server must be back with both workers.
 */
final class ChaosCampaignTest extends TestCase
{
    /** 20 s of load, the wait for the header timeout and the settling, on a loaded 2-core machine. */
    private const TIME_LIMIT = 240.0;

    public function testNoAcknowledgedOperationIsLostUnderEveryFault(): void
    {
        $root = \dirname(__DIR__, 3);
        $json = sys_get_temp_dir() . '/nexus-chaos-' . bin2hex(random_bytes(4)) . '.json';
        $process = PhpProcess::run(["{$root}/bench/chaos/run.php", '--short', "--json={$json}"], $root, self::TIME_LIMIT);
        $text = @file_get_contents($json);
        @unlink($json);

        self::assertIsString($text, 'The campaign wrote no result. ' . $process->describe());
        /** @var array{lost: int, skipped: list<string>, faults: array<string, int>, verdict: array<string, array{acknowledged: int, lost: int, extra: int}>, resources: array{after: array{processes: int}}} $result */
        $result = json_decode($text, true, 64, \JSON_THROW_ON_ERROR);
        self::assertSame(0, $result['lost'], 'acknowledged operations lost: ' . $process->describe());
        self::assertSame(0, $process->exitCode, $process->describe());

        $expected = array_map(static fn(FaultKind $kind): string => $kind->value, FaultKind::cases());
        // Without PostgreSQL or Redis their restarts are left out, and the report says so.
        $skipped = implode(' ', $result['skipped']);
        $expected = array_values(array_filter($expected, static fn(string $kind): bool => !(
            ($kind === FaultKind::PostgresRestart->value && str_contains($skipped, 'PostgreSQL'))
            || ($kind === FaultKind::RedisRestart->value && str_contains($skipped, 'Redis'))
        )));
        foreach ($expected as $kind) {
            self::assertGreaterThanOrEqual(1, $result['faults'][$kind] ?? 0, "the campaign injected {$kind}");
        }
        self::assertGreaterThan(1_000, $result['verdict']['counter']['acknowledged'], 'the counters were under load');
        self::assertSame(0, $result['verdict']['counter']['extra'], 'no increment counted twice');
        self::assertSame(3, $result['resources']['after']['processes'], 'the master and two workers are back');
    }
}
