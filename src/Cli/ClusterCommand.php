<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Cluster\ClusterOptions;
use Nexus\Cluster\Etcd\EtcdClient;
use Nexus\Cluster\Exception\ClusterConfigurationException;
use Nexus\Cluster\Exception\ClusterException;
use Nexus\Cluster\Member;
use Nexus\Runtime\Loop;

/**
 * `nexus cluster status --cluster=etcd://HOST:PORT[/PREFIX] [--json]`
 *
 * Lists the members of a cluster as etcd holds them: name, incarnation, whether it is leaving,
 * the revision it has applied, and each worker's address with the entities and named actors it
 * hosts (as the node last reported them, every 2 s).
 */
final class ClusterCommand implements Command, HasUsage
{
    public function name(): string
    {
        return 'cluster';
    }

    public function description(): string
    {
        return 'Show the members of a cluster (nexus cluster status --cluster=etcd://HOST:PORT)';
    }

    public function run(array $args, $stdout, $stderr): int
    {
        $cluster = null;
        $json = false;
        $action = null;
        foreach ($args as $arg) {
            if ($arg === '--help' || $arg === '-h') {
                fwrite($stdout, $this->usage());

                return self::SUCCESS;
            }
            if (str_starts_with($arg, '--cluster=')) {
                $cluster = substr($arg, 10);
            } elseif ($arg === '--json') {
                $json = true;
            } elseif ($action === null && !str_starts_with($arg, '-')) {
                $action = $arg;
            } else {
                throw new UsageException("Unknown argument '{$arg}'. See: nexus cluster --help");
            }
        }
        if ($action !== 'status') {
            throw new UsageException('nexus cluster takes one action: status. See: nexus cluster --help');
        }
        if ($cluster === null) {
            throw new UsageException('nexus cluster status needs --cluster=etcd://HOST:PORT.');
        }
        try {
            [$endpoint, $prefix] = ClusterOptions::parseUrl($cluster);
        } catch (ClusterConfigurationException $e) {
            throw new UsageException($e->getMessage(), 0, $e);
        }
        $etcd = new EtcdClient(new Loop(), $endpoint, 5.0);
        try {
            $range = $etcd->range($prefix)->await();
        } catch (ClusterException $e) {
            fwrite($stderr, "nexus cluster: {$e->getMessage()}\n");

            return self::FAILURE;
        } finally {
            $etcd->close();
        }
        $records = [];
        foreach ($range->kvs as $kv) {
            $records[$kv->key] = $kv;
        }
        $members = [];
        foreach ($records as $key => $kv) {
            if (!str_starts_with($key, $prefix . 'members/')) {
                continue;
            }
            $id = substr($key, \strlen($prefix . 'members/'));
            $member = Member::decode($key, $kv->value, $kv->createRevision);
            if ($member === null) {
                continue;
            }
            $statsRecord = $records[$prefix . 'stats/' . $id] ?? null;
            $stats = $statsRecord === null ? null : json_decode($statsRecord->value, true);
            $reported = \is_array($stats) && \is_array($stats['workers'] ?? null) ? $stats['workers'] : [];
            $workers = [];
            foreach ($member->workers as $w => $address) {
                $hosted = \is_array($reported[$w] ?? null) ? $reported[$w] : [];
                $workers[] = [
                    'worker' => $w,
                    'address' => $address,
                    'entities' => \is_int($hosted['entities'] ?? null) ? $hosted['entities'] : null,
                    'named' => \is_int($hosted['named'] ?? null) ? $hosted['named'] : null,
                ];
            }
            $applied = $records[$prefix . 'applied/' . $id] ?? null;
            $members[] = [
                'node' => $member->name,
                'incarnation' => $member->incarnation,
                'leaving' => isset($records[$prefix . 'leaving/' . $id]),
                'applied' => $applied !== null && ctype_digit($applied->value) ? (int) $applied->value : 0,
                'workers' => $workers,
            ];
        }
        usort($members, static fn(array $a, array $b): int => $a['incarnation'] <=> $b['incarnation']);
        if ($json) {
            fwrite($stdout, json_encode(['revision' => $range->revision, 'prefix' => $prefix, 'members' => $members], \JSON_PRETTY_PRINT | \JSON_UNESCAPED_SLASHES | \JSON_THROW_ON_ERROR) . "\n");

            return self::SUCCESS;
        }
        fwrite($stdout, sprintf("Cluster at %s (prefix %s), revision %d: %d member%s.\n", $endpoint, $prefix, $range->revision, \count($members), \count($members) === 1 ? '' : 's'));
        foreach ($members as $m) {
            fwrite($stdout, sprintf("\n  %s  incarnation %d%s, applied %d\n", $m['node'], $m['incarnation'], $m['leaving'] ? ', leaving' : '', $m['applied']));
            foreach ($m['workers'] as $w) {
                fwrite($stdout, sprintf(
                    "    worker %d  %s  %s entities, %s named actors\n",
                    $w['worker'],
                    $w['address'],
                    $w['entities'] ?? '?',
                    $w['named'] ?? '?',
                ));
            }
        }

        return self::SUCCESS;
    }

    public function usage(): string
    {
        return <<<'TXT'
            Usage: nexus cluster status --cluster=etcd://HOST:PORT[/PREFIX] [--json]

              Lists the members of the cluster whose membership that etcd keeps: each node's name and
              incarnation, whether it is leaving, the revision it has applied, and its workers with
              the entities and named actors each hosts (reported every 2 s).
              --json   the same as JSON

            TXT;
    }
}
