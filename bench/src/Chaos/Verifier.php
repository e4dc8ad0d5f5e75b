<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

use Nexus\Bench\Db\RunningPostgres;

/**
 * Compares what the clients were told (Ledger) with what the servers hold once the campaign is
 * over. An acknowledged operation is lost when its effect is missing:
 *
 * - a counter: each acknowledged increment returned the counter's new value; those values must
 *   be distinct and at most the final value (a counter that lost its state and counted again
 *   hands out a value twice, or ends below what it acknowledged);
 * - PostgreSQL and Redis: each acknowledged id must be stored.
 *
 * "Applied more than possible" counts the other way round: a counter above its acknowledged plus
 * unsettled increments has counted something twice.
 */
final class Verifier
{
    /**
     * @param list<string> $counterNames
     *
     * @return array<string, array{acknowledged: int, lost: int, extra: int, note: string}>
     */
    public static function verify(ServerUnderTest $server, Ledger $ledger, array $counterNames, ?RunningPostgres $postgres, ?RunningRedis $redis): array
    {
        $results = ['counter' => self::counters($server, $ledger, $counterNames)];
        if ($postgres !== null) {
            $stored = [];
            foreach ($postgres->pdo()->query('SELECT id FROM chaos_ops') ?: [] as $row) {
                if (\is_array($row) && \is_string($row['id'] ?? null)) {
                    $stored[$row['id']] = true;
                }
            }
            $results['postgres'] = self::ids($ledger->ackedIds['postgres'], $stored, 'rows in chaos_ops');
        }
        if ($redis !== null) {
            $results['redis'] = self::ids($ledger->ackedIds['redis'], $redis->members('chaos:ops'), 'members of chaos:ops');
        }

        return $results;
    }

    /**
     * @param list<string> $names
     *
     * @return array{acknowledged: int, lost: int, extra: int, note: string}
     */
    private static function counters(ServerUnderTest $server, Ledger $ledger, array $names): array
    {
        $acknowledged = $lost = $extra = 0;
        $unreadable = [];
        $deadline = microtime(true) + 30.0;
        foreach ($names as $name) {
            $values = $ledger->counterValues[$name] ?? [];
            $acknowledged += \count($values);
            $final = null;
            while ($final === null && microtime(true) < $deadline) {
                [$status, $body] = $server->get("/counter/{$name}");
                $decoded = $status === 200 ? json_decode($body, true) : null;
                if (\is_array($decoded) && \is_int($decoded['value'] ?? null)) {
                    $final = $decoded['value'];
                } else {
                    usleep(100_000);
                }
            }
            if ($final === null) {
                $unreadable[] = $name;
                $lost += \count($values);

                continue;
            }
            $kept = \count(array_filter(array_unique($values), static fn(int $value): bool => $value >= 1 && $value <= $final));
            $lost += \count($values) - $kept;
            $extra += max(0, $final - \count($values) - ($ledger->counterUnsettled[$name] ?? 0));
        }

        return [
            'acknowledged' => $acknowledged,
            'lost' => $lost,
            'extra' => $extra,
            'note' => $unreadable === [] ? \count($names) . ' counters read back' : 'unreadable counters: ' . implode(', ', $unreadable),
        ];
    }

    /**
     * @param array<string, true> $acknowledged
     * @param array<string, true> $stored
     *
     * @return array{acknowledged: int, lost: int, extra: int, note: string}
     */
    private static function ids(array $acknowledged, array $stored, string $what): array
    {
        $missing = array_diff_key($acknowledged, $stored);

        return [
            'acknowledged' => \count($acknowledged),
            'lost' => \count($missing),
            'extra' => 0,
            'note' => \count($stored) . " {$what}" . ($missing === [] ? '' : '; missing e.g. ' . implode(', ', \array_slice(array_keys($missing), 0, 5))),
        ];
    }
}
