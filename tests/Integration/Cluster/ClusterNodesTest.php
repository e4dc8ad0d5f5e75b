<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * A cluster as users run it: a real etcd in a temp directory, nodes started with
 * `bin/nexus serve --cluster=...` (a master and two workers each, on loopback), durable counters
 * in one SQLite file the nodes share (--data-dir), and load from this process.
 *
 * After every scenario each counter's value v must hold acked <= v <= acked + ambiguous (no
 * acknowledged increment lost, none doubled), and the journal must show one owner at a time: per
 * counter, its writers never interleave and a newer writer always has a higher epoch.
 */
final class ClusterNodesTest extends TestCase
{
    use RunsClusterNodes;

    private const LEASE_TTL = 3;

    /** @var list<int> */
    private array $proxies = [];

    protected function setUp(): void
    {
        $this->setUpCluster('cluster-nodes', 150.0);
    }

    protected function tearDown(): void
    {
        foreach ($this->proxies as $pid) {
            @posix_kill($pid, \SIGKILL);
        }
        $this->tearDownCluster();
    }

    public function testThreeNodesOfTwoWorkersCountExactlyThroughWhicheverNodeARequestHits(): void
    {
        $nodes = [$this->start('a'), $this->start('b'), $this->start('c')];
        $names = self::names('n', 12);
        $load = $this->load($names, $nodes);
        $this->runUntil(static fn(): bool => array_sum($load->acked) >= 150);
        $this->finish($load);

        foreach ($nodes as $node) {
            $this->assertExact($load, $this->totalsThrough($node, $names), "read through node {$node->name}");
        }
        $writers = $this->writersBySlotNode();
        self::assertGreaterThanOrEqual(2, \count($writers), 'the counters live on several nodes');
        $this->assertOneOwnerAtATime();

        $status = $this->clusterStatus();
        self::assertCount(3, $status['members']);
        foreach ($status['members'] as $member) {
            self::assertCount(2, $member['workers']);
        }
        foreach ($nodes as $node) {
            // Each node's admin listener reports its membership among its readiness checks.
            $readiness = (string) @file_get_contents("{$node->admin}/readyz", false, stream_context_create(['http' => ['timeout' => 10.0, 'ignore_errors' => true]]));
            /** @var array{checks?: array{cluster?: array{ok: bool, detail?: string}}} $document */
            $document = json_decode($readiness, true);
            $cluster = $document['checks']['cluster'] ?? ['ok' => false];
            self::assertTrue($cluster['ok'], "node {$node->name}: {$readiness}");
            self::assertStringContainsString('one of 3 members', $cluster['detail'] ?? '', $readiness);
        }
    }

    public function testAKilledNodesCountersAnswerElsewhereWithinTheLeaseAndNothingAcknowledgedIsLostOrDoubled(): void
    {
        $nodes = [$this->start('a'), $this->start('b'), $this->start('c')];
        $names = self::names('k', 24);
        $load = $this->load($names, $nodes);
        $this->runUntil(static fn(): bool => self::least($load->acked) >= 2);
        $victim = $nodes[2];
        $onVictim = $this->countersOn($this->nodeNumberOf($victim), $names);
        self::assertNotSame([], $onVictim, 'some counters live on the node that is killed');

        $load->bases = [$nodes[0]->url, $nodes[1]->url];
        $killedAt = $this->loop->now();
        $victim->kill();
        $this->runUntil(static function () use ($load, $onVictim, $killedAt): bool {
            foreach ($onVictim as $name) {
                if (($load->lastAck[$name] ?? 0.0) <= $killedAt) {
                    return false;
                }
            }

            return true;
        });
        $back = self::latest($load, $onVictim) - $killedAt;
        self::assertLessThan(self::LEASE_TTL + 2.0, $back, \sprintf('its counters answered on the other nodes %.2f s after the kill', $back));
        $this->finish($load);

        $this->assertExact($load, $this->totalsThrough($nodes[0], $names), 'after the kill');
        $this->assertOneOwnerAtATime();
    }

    public function testANodeThatJoinsUnderLoadTakesPartOfTheEntitiesAndCountsStayExact(): void
    {
        $nodes = [$this->start('a'), $this->start('b')];
        $names = self::names('j', 24);
        $load = $this->load($names, $nodes);
        $this->runUntil(static fn(): bool => self::least($load->acked) >= 2);
        $before = $this->writersByCounter();

        $c = $this->start('c');
        $load->bases[] = $c->url;
        $joinedAt = $this->loop->now();
        $this->runUntil(static function () use ($load, $joinedAt): bool {
            foreach ($load->lastAck as $at) {
                if ($at <= $joinedAt + 1.0) {
                    return false;
                }
            }

            return true;
        });
        $this->finish($load);

        $this->assertExact($load, $this->totalsThrough($c, $names), 'after the join');
        $cNumber = $this->nodeNumberOf($c);
        $after = $this->writersByCounter();
        $moved = array_filter($names, static fn(string $n): bool => ($after[$n] >> 8) === $cNumber && ($before[$n] >> 8) !== $cNumber);
        self::assertNotSame([], $moved, 'part of the entities moved to the node that joined');
        self::assertLessThan(\count($names), \count($moved), 'only part of them');
        $this->assertOneOwnerAtATime();
    }

    public function testEtcdGoingAwayStopsEveryOwnerBeforeItsLeaseExpiresAndServiceResumesWhenItIsBack(): void
    {
        $nodes = [$this->start('a'), $this->start('b')];
        $names = self::names('e', 16);
        $load = $this->load($names, $nodes);
        $this->runUntil(static fn(): bool => self::least($load->acked) >= 2);
        $etcd = $this->etcd;
        \assert($etcd !== null);

        $etcd->stop();
        $stoppedAt = $this->loop->now();
        $this->runUntil(fn(): bool => $this->loop->now() > $stoppedAt + self::LEASE_TTL + 1.5
            && str_contains($nodes[0]->logText(), 'stops hosting') && str_contains($nodes[1]->logText(), 'stops hosting'));
        $etcd->restart();
        $backAt = $this->loop->now();
        $this->runUntil(static function () use ($load, $backAt): bool {
            foreach ($load->lastAck as $at) {
                if ($at <= $backAt) {
                    return false;
                }
            }

            return true;
        });
        $this->finish($load);

        $this->assertExact($load, $this->totalsThrough($nodes[1], $names), 'after etcd came back');
        $this->assertOneOwnerAtATime();
        foreach ($nodes as $node) {
            self::assertStringContainsString('joined the cluster again', $node->logText(), "node {$node->name} rejoined as a new incarnation");
        }
    }

    public function testALinkThatStopsForwardingGivesDeadLettersWithAReasonOrDeliversOnceItIsBack(): void
    {
        [$listen, $advertised] = [self::freePorts(2), self::freePorts(2)];
        $proxy = $this->proxy($advertised, $listen, 2);
        $a = $this->start('a');
        $b = $this->start('b', ['--advertise=127.0.0.1:' . $advertised, '--listen-nodes=127.0.0.1:' . $listen]);
        $names = self::names('p', 12);
        $load = $this->load($names, [$a]); // everything enters through a: what lives on b crosses the proxy
        $this->runUntil(static fn(): bool => self::least($load->acked) >= 2);
        $onB = $this->countersOn($this->nodeNumberOf($b), $names);
        self::assertNotSame([], $onB);

        // A short cut: what waited in the proxy is delivered once it forwards again.
        posix_kill($proxy, \SIGUSR1);
        $cutAt = $this->loop->now();
        $this->runUntil(fn(): bool => $this->loop->now() > $cutAt + 2.5);
        posix_kill($proxy, \SIGUSR2);
        $backAt = $this->loop->now();
        $this->runUntil(static fn(): bool => self::earliest($load, $onB) > $backAt);

        // A long cut: the link is given up, what it had not confirmed becomes dead letters.
        posix_kill($proxy, \SIGUSR1);
        $this->runUntil(static fn(): bool => str_contains($a->logText(), 'nothing acknowledged for'));
        posix_kill($proxy, \SIGUSR2);
        $backAt = $this->loop->now();
        $this->runUntil(static fn(): bool => self::earliest($load, $onB) > $backAt);
        $this->finish($load);

        self::assertMatchesRegularExpression('/went to dead letters \((worker lost|worker unavailable)/', $a->logText(), 'what the link had not confirmed is dead letters, with the reason');
        foreach ($onB as $name) {
            self::assertGreaterThan(0, $load->ambiguous[$name], "{$name}: the cut was felt (answers that did not come in time)");
        }
        $this->assertExact($load, $this->totalsThrough($a, $names), 'after the link came back');
        $this->assertOneOwnerAtATime();
    }

    public function testAReloadInsideANodeFailsNoRequest(): void
    {
        $nodes = [$this->start('a'), $this->start('b')];
        $names = self::names('r', 16);
        $load = $this->load($names, $nodes);
        $this->runUntil(static fn(): bool => self::least($load->acked) >= 2);

        posix_kill($nodes[0]->pid, \SIGHUP);
        $this->runUntil(static fn(): bool => substr_count($nodes[0]->logText(), 'generation 2') >= 2 && substr_count($nodes[0]->logText(), 'stopped (exit code 0)') >= 2);
        $reloadedAt = $this->loop->now();
        $this->runUntil(static fn(): bool => self::earliest($load, $names) > $reloadedAt);
        $this->finish($load);

        // Nothing failed because of the reload; SQLite shared by two nodes of two workers may
        // still say "database is locked" past its busy timeout on a loaded machine (a transient
        // store failure, answered 503, that has nothing to do with the reload).
        unset($load->failureKinds[StoreUnavailableException::class]);
        self::assertSame([], $load->failureKinds, "every request was answered with its increment stored:\n" . implode("\n", $load->failures) . "\n" . $this->logs());
        $this->assertExact($load, $this->totalsThrough($nodes[1], $names), 'after the reload');
        $this->assertOneOwnerAtATime();
    }

    public function testANodeWhoseStoreTheMembersDoNotShareIsRefusedAtJoin(): void
    {
        $this->start('a');
        $etcd = $this->etcd;
        \assert($etcd !== null);
        $other = $this->dir . '/other';
        $process = \Nexus\Tests\Integration\Cli\PhpProcess::run(
            ['bin/nexus', 'serve', 'tests/Integration/Cluster/Fixture/cluster-app.php', '--port=0', '--workers=1', '--no-jit', "--data-dir={$other}", "--cluster=etcd://127.0.0.1:{$etcd->port}/test", '--node=b'],
            __DIR__ . '/../../..',
            30.0,
        );

        self::assertSame(1, $process->exitCode, $process->describe());
        self::assertStringContainsString("is not the one the cluster's members share", $process->stderr);
        self::assertCount(1, $this->clusterStatus()['members'], 'it did not join');
    }

    // ---- the scenario's pieces ----------------------------------------------------------------

    /**
     * @param list<string> $options
     */
    private function start(string $name, array $options = []): NodeProcess
    {
        $etcd = $this->etcd;
        \assert($etcd !== null);
        $node = new NodeProcess($name, 'etcd://127.0.0.1:' . $etcd->port . '/test', $this->dir, "{$this->dir}/{$name}.log", 2, self::LEASE_TTL, $options);
        $this->nodes[] = $node;

        return $node;
    }

    /**
     * The journal shows one owner at a time: per counter, each activation (slot, process and
     * epoch) wrote one unbroken run, and each later run has a higher epoch.
     */
    private function assertOneOwnerAtATime(): void
    {
        // An owner is one activation: a worker process (slot/pid) and the epoch it was placed
        // under. The same process may own a counter again later (it moved to a node that joined,
        // which was then killed), but only as a new activation with a higher epoch; an activation
        // that another one followed never writes again.
        foreach ($this->journal() as $id => $events) {
            $owners = [];
            $lastOwner = null;
            $lastEpoch = 0;
            foreach ($events as [$epoch, $writer]) {
                $owner = "{$writer} at epoch {$epoch}";
                if ($owner !== $lastOwner) {
                    self::assertArrayNotHasKey($owner, $owners, "{$id}: {$owner} wrote again after another owner: two owners");
                    self::assertGreaterThan($lastEpoch, $epoch, "{$id}: a new owner ({$owner}) writes with a higher epoch");
                    $owners[$owner] = true;
                    $lastOwner = $owner;
                }
                $lastEpoch = $epoch;
            }
        }
        foreach ($this->nodes as $node) {
            self::assertStringNotContainsString('ConcurrentWriteException', $node->logText(), "node {$node->name} never met another writer");
        }
    }

    /**
     * @return array<string, list<array{int, string}>> epoch and writer ("slot/pid") of each event, by persistence id
     */
    private function journal(): array
    {
        $db = new \PDO('sqlite:' . $this->dir . '/nexus.sqlite');
        $rows = $db->query("SELECT persistence_id, writer_epoch, payload FROM nexus_journal WHERE persistence_id LIKE 'counter|%' ORDER BY persistence_id, sequence_nr");
        \assert($rows !== false);
        $journal = [];
        foreach ($rows->fetchAll(\PDO::FETCH_NUM) as $row) {
            \assert(\is_array($row) && \is_string($row[0]) && \is_int($row[1]) && \is_string($row[2]));
            $data = json_decode($row[2], true);
            \assert(\is_array($data) && \is_int($data['slot'] ?? null) && \is_int($data['pid'] ?? null));
            $journal[$row[0]][] = [$row[1], $data['slot'] . '/' . $data['pid']];
        }

        return $journal;
    }

    /**
     * @return array<string, int> the slot that wrote each counter's last event
     */
    private function writersByCounter(): array
    {
        $last = [];
        foreach ($this->journal() as $id => $events) {
            $last[substr($id, 8)] = (int) explode('/', $events[\count($events) - 1][1])[0];
        }

        return $last;
    }

    /**
     * @return array<int, true> node numbers that wrote
     */
    private function writersBySlotNode(): array
    {
        $nodes = [];
        foreach ($this->writersByCounter() as $slot) {
            $nodes[$slot >> 8] = true;
        }

        return $nodes;
    }

    /**
     * @param list<string> $names
     *
     * @return list<string> the counters whose last event node $number wrote
     */
    private function countersOn(int $number, array $names): array
    {
        $writers = $this->writersByCounter();

        return array_values(array_filter($names, static fn(string $n): bool => isset($writers[$n]) && ($writers[$n] >> 8) === $number));
    }

    private function nodeNumberOf(NodeProcess $node): int
    {
        $reader = new \Nexus\HttpClient\HttpClient($this->loop);
        try {
            $data = json_decode($reader->get($node->url . '/whoami')->await()->body(), true);
        } finally {
            $reader->close();
        }
        \assert(\is_array($data) && \is_int($data['slot'] ?? null));

        return $data['slot'] >> 8;
    }

    /**
     * @return array{members: list<array{node: string, workers: list<array<string, mixed>>}>}
     */
    private function clusterStatus(): array
    {
        $etcd = $this->etcd;
        \assert($etcd !== null);
        $output = [];
        exec(escapeshellarg(\PHP_BINARY) . ' ' . escapeshellarg(__DIR__ . '/../../../bin/nexus') . ' cluster status --json --cluster=etcd://127.0.0.1:' . $etcd->port . '/test', $output, $code);
        self::assertSame(0, $code, implode("\n", $output));
        $status = json_decode(implode("\n", $output), true);
        self::assertIsArray($status);
        self::assertIsArray($status['members'] ?? null);

        /** @var array{members: list<array{node: string, workers: list<array<string, mixed>>}>} $status */
        return $status;
    }

    private function proxy(int $listen, int $target, int $count): int
    {
        $process = proc_open([\PHP_BINARY, __DIR__ . '/Fixture/tcp-proxy.php', (string) $listen, (string) $target, (string) $count], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', $this->dir . '/proxy.log', 'a']], $pipes);
        self::assertIsResource($process);
        $pid = proc_get_status($process)['pid'];
        $this->proxies[] = $pid;
        $line = fgets($pipes[1]);
        self::assertSame("ready\n", $line, 'the proxy listens');

        return $pid;
    }

    /**
     * A base port with $count free ports from it.
     */
    private static function freePorts(int $count): int
    {
        for ($attempt = 0; $attempt < 50; ++$attempt) {
            $base = random_int(20_000, 60_000);
            $held = [];
            for ($i = 0; $i < $count; ++$i) {
                $socket = @stream_socket_server('tcp://127.0.0.1:' . ($base + $i));
                if ($socket === false) {
                    break;
                }
                $held[] = $socket;
            }
            array_map('fclose', $held);
            if (\count($held) === $count) {
                return $base;
            }
        }
        self::fail("No {$count} free ports in a row.");
    }

    /**
     * @param array<string, int> $counts
     */
    private static function least(array $counts): int
    {
        return $counts === [] ? 0 : min($counts);
    }

    /**
     * When the last of $names was acknowledged (loop time).
     *
     * @param list<string> $names
     */
    private static function latest(CounterLoad $load, array $names): float
    {
        $latest = 0.0;
        foreach ($names as $name) {
            $latest = max($latest, $load->lastAck[$name] ?? 0.0);
        }

        return $latest;
    }

    /**
     * When the one of $names acknowledged longest ago was last acknowledged (loop time).
     *
     * @param list<string> $names
     */
    private static function earliest(CounterLoad $load, array $names): float
    {
        $earliest = \INF;
        foreach ($names as $name) {
            $earliest = min($earliest, $load->lastAck[$name] ?? 0.0);
        }

        return $earliest;
    }

    /**
     * @return list<string>
     */
    private static function names(string $prefix, int $count): array
    {
        $names = [];
        for ($i = 1; $i <= $count; ++$i) {
            $names[] = "{$prefix}{$i}";
        }

        return $names;
    }

    private function logs(): string
    {
        $logs = '';
        foreach ($this->nodes as $node) {
            $logs .= "--- node {$node->name} ---\n" . substr($node->logText(), -4000) . "\n";
        }

        return $logs;
    }
}
