<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Tests\Integration\Worker\NodeCertificates;
use PHPUnit\Framework\TestCase;

/**
 * Two `bin/nexus serve --cluster` nodes with --cluster-tls-cert/key/ca: every link between them
 * is mutual TLS (each end shows its certificate and checks the other's), and the counters count
 * exactly through either node, with no TLS refusal logged.
 */
final class ClusterOverMutualTlsTest extends TestCase
{
    use RunsClusterNodes;

    /** The last `nexus cluster status --json` */
    private string $status = '';

    protected function setUp(): void
    {
        $this->setUpCluster('cluster-mtls', 120.0);
    }

    protected function tearDown(): void
    {
        $this->tearDownCluster();
    }

    public function testTwoNodesOverMutualTlsCountExactly(): void
    {
        \assert($this->etcd !== null);
        $certs = NodeCertificates::get();
        $tls = ["--cluster-tls-cert={$certs->nodeCert}", "--cluster-tls-key={$certs->nodeKey}", "--cluster-tls-ca={$certs->caFile}"];
        foreach (['a', 'b'] as $name) {
            $this->nodes[] = new NodeProcess($name, 'etcd://127.0.0.1:' . $this->etcd->port . '/test', $this->dir, "{$this->dir}/{$name}.log", 2, 3, $tls);
        }
        $names = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
        $load = $this->load($names, $this->nodes, 6);
        $this->runUntil(static fn(): bool => array_sum($load->acked) >= 80);
        $this->finish($load);

        $this->assertExact($load, $this->totalsThrough($this->nodes[1], $names), 'over mutual TLS');
        // Both nodes host counters and every counter was asked through both: requests crossed.
        $deadline = microtime(true) + 30.0;
        while ($this->entitiesByNode() !== ['a' => true, 'b' => true]) {
            self::assertLessThan($deadline, microtime(true), "both nodes host counters within 30 s:\n{$this->status}");
            $this->runFor(0.2);
        }
        self::assertStringNotContainsString('TLS link', $this->logs(), 'no link was refused');
    }

    /**
     * Whether each member hosts entities, by node name (`nexus cluster status --json`).
     *
     * @return array<string, bool>
     */
    private function entitiesByNode(): array
    {
        \assert($this->etcd !== null);
        $output = [];
        exec(escapeshellarg(\PHP_BINARY) . ' ' . escapeshellarg(__DIR__ . '/../../../bin/nexus') . ' cluster status --json --cluster=etcd://127.0.0.1:' . $this->etcd->port . '/test', $output);
        $this->status = implode("\n", $output);
        $status = json_decode($this->status, true);
        $hosts = [];
        foreach (\is_array($status) && \is_array($status['members'] ?? null) ? $status['members'] : [] as $member) {
            if (\is_array($member) && \is_string($member['node'] ?? null)) {
                $entities = 0;
                foreach (\is_array($member['workers'] ?? null) ? $member['workers'] : [] as $worker) {
                    $entities += \is_array($worker) && \is_int($worker['entities'] ?? null) ? $worker['entities'] : 0;
                }
                $hosts[$member['node']] = $entities > 0;
            }
        }
        ksort($hosts);

        return $hosts;
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
