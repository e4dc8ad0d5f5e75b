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

    protected function checkLoop(): void
    {
        if (microtime(true) > $this->deadline) {
            self::fail("The scenario did not finish in time.\n" . $this->logs());
        }
    }
}
