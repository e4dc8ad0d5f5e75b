<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\EtcdServer;
use Nexus\Tests\Support\RunsTheLoop;

/**
 * What the tests that run `bin/nexus serve` nodes against a real etcd share: the etcd (started,
 * or only prepared for a test that starts it later), a loop for the load, a temp directory for
 * the nodes' data, and a deadline for the whole scenario. Everything is stopped and removed in
 * tearDownCluster(), whatever the test did.
 */
trait RunsClusterNodes
{
    use RunsTheLoop;

    private ?EtcdServer $etcd = null;
    private Loop $loop;
    private string $dir;
    /** @var list<NodeProcess> */
    private array $nodes = [];
    private ?CounterLoad $load = null;
    private float $deadline;

    /**
     * Skips the test when etcd is not installed; otherwise starts (or prepares) etcd and makes
     * the loop and a temp directory named after $name.
     */
    private function setUpCluster(string $name, float $deadline, bool $startEtcd = true): void
    {
        $why = null;
        if (EtcdServer::binary($why) === null) {
            self::markTestSkipped((string) $why);
        }
        $this->etcd = $startEtcd ? EtcdServer::start() : EtcdServer::prepare();
        $this->loop = new Loop();
        $this->dir = sys_get_temp_dir() . "/nexus-{$name}-" . bin2hex(random_bytes(4));
        mkdir($this->dir, 0o700);
        $this->deadline = microtime(true) + $deadline;
        $this->loop->unreference($this->loop->repeat(0.1, static function (): void {}));
    }

    private function tearDownCluster(): void
    {
        $this->load?->close();
        foreach ($this->nodes as $node) {
            $node->kill();
        }
        $this->etcd?->destroy();
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    /**
     * Starts $clients clients incrementing the counters $names through $nodes in turn.
     *
     * @param list<string>      $names
     * @param list<NodeProcess> $nodes
     */
    private function load(array $names, array $nodes, int $clients = 8): CounterLoad
    {
        $this->load = new CounterLoad($this->loop, $names, array_map(static fn(NodeProcess $n): string => $n->url, $nodes), $clients);
        $this->load->start();

        return $this->load;
    }

    private function finish(CounterLoad $load): void
    {
        $load->stop();
        $this->runUntil(static fn(): bool => $load->isIdle());
    }

    /**
     * Every counter's total holds what was acknowledged and at most what was ambiguous besides
     * (none lost, none doubled), and no value was acknowledged twice.
     *
     * @param array<string, int|null> $totals
     */
    private function assertExact(CounterLoad $load, array $totals, string $when): void
    {
        foreach ($totals as $name => $total) {
            self::assertNotNull($total, "{$name} answered {$when}:\n" . $this->logs());
            self::assertGreaterThanOrEqual($load->acked[$name], $total, "{$name} {$when}: no acknowledged increment lost");
            self::assertLessThanOrEqual($load->acked[$name] + $load->ambiguous[$name], $total, "{$name} {$when}: none doubled");
            $values = $load->values[$name];
            self::assertSame(\count($values), \count(array_unique($values)), "{$name} {$when}: no value acknowledged twice");
        }
    }

    /**
     * The counters' totals read through $node.
     *
     * @param list<string> $names
     *
     * @return array<string, int|null>
     */
    private function totalsThrough(NodeProcess $node, array $names): array
    {
        $reader = new CounterLoad($this->loop, $names, [$node->url]);
        try {
            return $reader->totals();
        } finally {
            $reader->close();
        }
    }

    protected function checkLoop(): void
    {
        if (microtime(true) > $this->deadline) {
            self::fail("The scenario did not finish in time.\n" . $this->logs());
        }
    }
}
