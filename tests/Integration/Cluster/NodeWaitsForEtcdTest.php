<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * Nodes started before their etcd (`bin/nexus serve --cluster=...`, real processes, a real etcd
 * started later): they wait for it, are not ready meanwhile, join once it answers and count
 * exactly; a node told to stop while it waits ends within a few seconds; --cluster-wait bounds
 * the wait.
 */
final class NodeWaitsForEtcdTest extends TestCase
{
    use RunsClusterNodes;


    protected function setUp(): void
    {
        $this->setUpCluster('cluster-wait', 120.0, startEtcd: false);
    }

    protected function tearDown(): void
    {
        $this->tearDownCluster();
    }

    public function testNodesStartedBeforeEtcdWaitAreNotReadyThenJoinAndCountExactly(): void
    {
        $nodes = [$this->start('a'), $this->start('b'), $this->start('c')];
        foreach ($nodes as $node) {
            $admin = $node->adminAddress(30.0);
            $this->pollUntil(function () use ($admin): bool {
                [$status, $cluster] = self::readiness($admin);

                return $status === 503 && str_contains($cluster['detail'] ?? '', 'waiting for etcd at ' . $this->etcdEndpoint());
            }, 30.0);
            $this->pollUntil(static fn(): bool => str_contains($node->logText(), 'cannot reach etcd at '), 30.0);
            self::assertTrue($node->isRunning(), "node {$node->name} keeps waiting:\n" . $node->logText());
            self::assertStringNotContainsString('Nexus is serving', $node->output(), 'it serves nothing before it has joined');
            /** @var array{cluster?: array{state?: string, members?: list<mixed>}}|null $frame */
            $frame = json_decode((string) @file_get_contents("{$admin}/feed.json"), true);
            self::assertSame('joining', $frame['cluster']['state'] ?? null, 'the admin view shows the node joining');
            self::assertSame([], $frame['cluster']['members'] ?? null, 'no view of the cluster yet');
        }

        \assert($this->etcd !== null);
        $this->etcd->restart();
        foreach ($nodes as $node) {
            $node->waitUntilServing(60.0);
            self::assertStringContainsString('etcd at ' . $this->etcdEndpoint() . ' answered after', $node->logText());
        }

        $names = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
        $load = $this->load($names, $nodes, 6);
        $this->runUntil(static fn(): bool => array_sum($load->acked) >= 60);
        $this->finish($load);
        $this->assertExact($load, $this->totalsThrough($nodes[0], $names), 'after etcd came');
        foreach ($nodes as $node) {
            \assert($node->admin !== null);
            $this->pollUntil(static function () use ($node): bool {
                [$status, $cluster] = self::readiness((string) $node->admin);

                return $status === 200 && str_contains($cluster['detail'] ?? '', 'one of 3 members');
            }, 30.0);
        }
    }

    public function testSigtermWhileWaitingForEtcdEndsTheNodeWithinSeconds(): void
    {
        $node = $this->start('a');
        $this->pollUntil(static fn(): bool => str_contains($node->logText(), 'cannot reach etcd at '), 30.0);

        $sent = microtime(true);
        posix_kill($node->pid, \SIGTERM);
        self::assertTrue($node->waitUntilGone(5.0), "the node ends within 5 s of SIGTERM:\n" . $node->logText());
        self::assertLessThan(5.0, microtime(true) - $sent);
        self::assertStringContainsString('SIGTERM while waiting for etcd at ' . $this->etcdEndpoint(), $node->output());
        self::assertStringNotContainsString('Nexus is serving', $node->output());
    }

    public function testClusterWaitGivesUpWithAClearMessage(): void
    {
        $process = PhpProcess::run(
            ['bin/nexus', 'serve', 'tests/Integration/Cluster/Fixture/cluster-app.php', '--port=0', '--workers=1', '--no-jit', "--data-dir={$this->dir}", '--cluster=etcd://127.0.0.1:' . $this->etcdPort() . '/test', '--node=a', '--cluster-wait=1', '--admin=off'],
            __DIR__ . '/../../..',
            30.0,
        );

        self::assertSame(1, $process->exitCode, $process->describe());
        self::assertStringContainsString('etcd at ' . $this->etcdEndpoint() . ' did not answer within --cluster-wait=1 s (last error: etcd did not answer', $process->stderr);
        self::assertStringNotContainsString('Nexus is serving', $process->stdout);
    }

    private function start(string $name): NodeProcess
    {
        $node = new NodeProcess($name, 'etcd://127.0.0.1:' . $this->etcdPort() . '/test', $this->dir, "{$this->dir}/{$name}.log", 2, 3, [], false);
        $this->nodes[] = $node;

        return $node;
    }

    private function etcdPort(): int
    {
        \assert($this->etcd !== null);

        return $this->etcd->port;
    }

    private function etcdEndpoint(): string
    {
        return 'http://127.0.0.1:' . $this->etcdPort();
    }

    /**
     * @return array{int, array{ok?: bool, detail?: string}} the status and the cluster check
     */
    private static function readiness(string $admin): array
    {
        $answer = @file_get_contents("{$admin}/readyz", false, stream_context_create(['http' => ['timeout' => 5.0, 'ignore_errors' => true]]));
        $status = 0;
        foreach ($http_response_header as $header) {
            if (preg_match('#^HTTP/\S+ (\d{3})#', $header, $m) === 1) {
                $status = (int) $m[1];
            }
        }
        /** @var array{checks?: array{cluster?: array{ok?: bool, detail?: string}}}|null $document */
        $document = \is_string($answer) ? json_decode($answer, true) : null;

        return [$status, $document['checks']['cluster'] ?? []];
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
