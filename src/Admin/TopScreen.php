<?php

declare(strict_types=1);

namespace Nexus\Admin;

/**
 * Formats feed frames as the text screen of `nexus top`: the headline figures, one line per
 * worker (CPU and requests per second from the previous frame), the actors with the deepest
 * mailboxes (or the first ones while depths are unknown), the latest dead letters, the pools,
 * and for a node of a cluster its members (this node marked `*`).
 * Lines are cut to $width columns; at most $rows actors and dead letters each.
 */
final class TopScreen
{
    /** @var array<string, array{t: float, pid: int, cpu: float, requests: int|null}> */
    private array $previous = [];

    public function __construct(
        private readonly int $width = 100,
        private readonly int $rows = 8,
    ) {}

    /**
     * @param array<mixed> $frame
     */
    public function render(array $frame, string $source): string
    {
        $t = self::float($frame['t'] ?? 0);
        $h = \is_array($frame['headline'] ?? null) ? $frame['headline'] : [];
        $lines = [];
        $lines[] = \sprintf('Nexus · %s   %s   (admin %s)', self::str($frame['name'] ?? '?'), date('Y-m-d H:i:s', (int) $t), $source);
        $lines[] = \sprintf(
            'workers %s/%s up   actors %s   requests %s   req/s %s   p99 %s   dead letters %s',
            self::int($h['workersUp'] ?? null),
            self::int($h['workers'] ?? null),
            self::int($h['actors'] ?? null),
            self::int($h['requests'] ?? null),
            self::rate($h['rps'] ?? null),
            self::seconds($h['p99'] ?? null),
            self::int($h['deadLetters'] ?? null),
        );
        $lines[] = '';
        $lines[] = \sprintf('%-8s %8s %6s %11s %9s %9s  %s', 'WORKER', 'PID', 'CPU', 'RSS', 'REQ/S', 'RESTARTS', 'STATE');
        $next = [];
        foreach (self::rows($frame['workers'] ?? null) as $w) {
            $id = self::str($w['id'] ?? '?');
            $pid = \is_int($w['pid'] ?? null) ? $w['pid'] : 0;
            $cpu = self::float($w['cpuSeconds'] ?? 0);
            $requests = \is_int($w['requests'] ?? null) ? $w['requests'] : null;
            $before = $this->previous[$id] ?? null;
            $dt = $before === null ? 0.0 : $t - $before['t'];
            $same = $before !== null && $before['pid'] === $pid && $dt > 0;
            $lines[] = \sprintf(
                '%-8s %8d %6s %11s %9s %9s  %s',
                $id,
                $pid,
                $same ? round(($cpu - $before['cpu']) / $dt * 100) . '%' : '-',
                \is_int($w['rssBytes'] ?? null) ? \sprintf('%.1f MiB', $w['rssBytes'] / 1048576) : '-',
                $same && $requests !== null && $before['requests'] !== null ? self::rate(($requests - $before['requests']) / $dt) : '-',
                self::int($w['restarts'] ?? null),
                ($w['up'] ?? false) === true ? 'up' : 'DOWN',
            );
            $next[$id] = ['t' => $t, 'pid' => $pid, 'cpu' => $cpu, 'requests' => $requests];
        }
        $this->previous = $next;

        $actors = self::rows(\is_array($frame['actors'] ?? null) ? ($frame['actors']['nodes'] ?? null) : null);
        usort($actors, static fn(array $a, array $b): int => (\is_int($b['mailbox'] ?? null) ? $b['mailbox'] : -1) <=> (\is_int($a['mailbox'] ?? null) ? $a['mailbox'] : -1));
        $lines[] = '';
        $lines[] = \sprintf('%-60s %8s  %s', 'ACTOR (deepest mailboxes first)', 'MAILBOX', 'WORKER');
        foreach (\array_slice($actors, 0, $this->rows) as $a) {
            $lines[] = \sprintf('%-60s %8s  %s', self::str($a['path'] ?? '?'), self::int($a['mailbox'] ?? null), self::str($a['worker'] ?? ''));
        }
        if (\count($actors) > $this->rows) {
            $lines[] = \sprintf('… %d more', \count($actors) - $this->rows);
        }

        $dead = self::rows($frame['deadLetters'] ?? null);
        $lines[] = '';
        $lines[] = 'DEAD LETTERS (latest)';
        if ($dead === []) {
            $lines[] = 'none';
        }
        foreach (\array_slice(array_reverse($dead), 0, $this->rows) as $d) {
            $lines[] = \sprintf(
                '#%s %s %s -> %s (%s)',
                self::int($d['seq'] ?? null),
                date('H:i:s', (int) self::float($d['at'] ?? 0)),
                self::str($d['message'] ?? '?'),
                self::str($d['recipient'] ?? '?'),
                self::str($d['reason'] ?? '?'),
            );
        }

        $pools = self::rows($frame['pools'] ?? null);
        if ($pools !== []) {
            $lines[] = '';
            $lines[] = \sprintf('%-24s %-8s %-10s %6s %6s %8s %5s', 'POOL', 'WORKER', 'KIND', 'OPEN', 'IN USE', 'WAITING', 'MAX');
            foreach ($pools as $p) {
                $lines[] = \sprintf('%-24s %-8s %-10s %6s %6s %8s %5s', self::str($p['name'] ?? '?'), self::str($p['worker'] ?? ''), self::str($p['kind'] ?? ''), self::int($p['open'] ?? null), self::int($p['inUse'] ?? null), self::int($p['waiting'] ?? null), self::int($p['max'] ?? null));
            }
        }

        $cluster = $frame['cluster'] ?? null;
        if (\is_array($cluster)) {
            $lines[] = '';
            $lines[] = \sprintf(
                'CLUSTER  this node %s (incarnation %s) %s   view revision %s%s   %s members',
                self::str($cluster['node'] ?? '?'),
                self::int($cluster['incarnation'] ?? null),
                self::str($cluster['state'] ?? '?'),
                self::int($cluster['revision'] ?? null),
                ($cluster['settled'] ?? true) === false ? ' (settling)' : '',
                self::int($cluster['total'] ?? null),
            );
            $lines[] = \sprintf('%-24s %12s %-24s %7s  %s', 'MEMBER', 'INCARNATION', 'ADDRESS', 'WORKERS', 'STATE');
            $members = self::rows($cluster['members'] ?? null);
            foreach (\array_slice($members, 0, $this->rows) as $m) {
                $lines[] = \sprintf(
                    '%-24s %12s %-24s %7s  %s',
                    self::str($m['node'] ?? '?') . (($m['self'] ?? false) === true ? ' *' : ''),
                    self::int($m['incarnation'] ?? null),
                    self::str($m['address'] ?? ''),
                    self::int($m['workers'] ?? null),
                    self::str($m['state'] ?? '?'),
                );
            }
            if (\count($members) > $this->rows) {
                $lines[] = \sprintf('… %d more', \count($members) - $this->rows);
            }
        }

        return implode("\n", array_map(fn(string $line): string => mb_strimwidth($line, 0, $this->width, '…'), $lines)) . "\n";
    }

    /**
     * @return list<array<mixed>>
     */
    private static function rows(mixed $list): array
    {
        return \is_array($list) ? array_values(array_filter($list, 'is_array')) : [];
    }

    private static function str(mixed $value): string
    {
        return \is_string($value) || \is_int($value) ? (string) $value : '?';
    }

    private static function float(mixed $value): float
    {
        return \is_int($value) || \is_float($value) ? (float) $value : 0.0;
    }

    private static function int(mixed $value): string
    {
        return \is_int($value) ? number_format($value) : '-';
    }

    private static function rate(mixed $value): string
    {
        return \is_int($value) || \is_float($value) ? number_format((float) $value, 1) : '-';
    }

    private static function seconds(mixed $value): string
    {
        if (!\is_int($value) && !\is_float($value)) {
            return '-';
        }

        return $value < 1 ? \sprintf('%.2f ms', $value * 1000) : \sprintf('%.2f s', $value);
    }
}
