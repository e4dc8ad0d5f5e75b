<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster;

use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\DevToolsClient;
use Nexus\Tests\Support\EtcdServer;
use Nexus\Tests\Support\Promtool;
use PHPUnit\Framework\TestCase;

/**
 * A node's admin listener shows its cluster (issue 16): three `bin/nexus serve --cluster` nodes
 * against a real etcd; node a's /metrics carries the nexus_cluster_* gauges (valid for promtool),
 * its /feed.json the members (this node marked), and its dashboard, in headless Chromium, the
 * members table, which follows a member that leaves without a reload.
 */
final class ClusterMembersOnTheDashboardTest extends TestCase
{
    private ?EtcdServer $etcd = null;
    private string $dir;
    /** @var list<NodeProcess> */
    private array $nodes = [];
    private ?DevToolsClient $browser = null;

    protected function setUp(): void
    {
        $why = null;
        if (EtcdServer::binary($why) === null) {
            self::markTestSkipped((string) $why);
        }
        $this->etcd = EtcdServer::start();
        $this->dir = sys_get_temp_dir() . '/nexus-cluster-admin-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0o700);
    }

    protected function tearDown(): void
    {
        $this->browser?->close();
        foreach ($this->nodes as $node) {
            $node->kill();
        }
        $this->etcd?->destroy();
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    public function testMetricsAndTheFeedShowTheThreeMembersThisNodeMarked(): void
    {
        [$a] = $this->startThree();
        $admin = (string) $a->admin;

        $frame = $this->waitForFrame($admin, static fn(array $c): bool => \count($c['members']) === 3 && array_unique(array_column($c['members'], 'state')) === ['member']);
        self::assertSame('a', $frame['node']);
        self::assertSame('member', $frame['state']);
        self::assertSame(3, $frame['total']);
        self::assertSame(['a', 'b', 'c'], array_column($frame['members'], 'node'), 'in incarnation order (started in that order)');
        self::assertSame([true, false, false], array_column($frame['members'], 'self'));
        self::assertSame([2, 2, 2], array_column($frame['members'], 'workers'));
        self::assertSame($frame['incarnation'], $frame['members'][0]['incarnation']);
        foreach ($frame['members'] as $member) {
            self::assertMatchesRegularExpression('/^127\.0\.0\.1:\d+$/', $member['address']);
        }

        $metrics = self::get("{$admin}/metrics");
        self::assertMatchesRegularExpression('/^nexus_cluster_members\{state="member"\} 3$/m', $metrics, $metrics);
        self::assertMatchesRegularExpression('/^nexus_cluster_members\{state="leaving"\} 0$/m', $metrics);
        self::assertMatchesRegularExpression('/^nexus_cluster_state\{state="member"\} 1$/m', $metrics);
        self::assertMatchesRegularExpression('/^nexus_cluster_state\{state="fenced"\} 0$/m', $metrics);
        self::assertMatchesRegularExpression('/^nexus_cluster_incarnation ' . $frame['incarnation'] . '$/m', $metrics);
        self::assertSame(1, preg_match('/^nexus_cluster_view_revision (\d+)$/m', $metrics, $revision));
        self::assertGreaterThanOrEqual($frame['members'][2]['incarnation'], (int) ($revision[1] ?? 0), 'the view includes the last join');
        self::assertSame(0, preg_match('/^nexus_cluster_\w+\{[^}]*worker=/m', $metrics), 'the cluster gauges are the master\'s, not one per worker');

        $why = null;
        $promtool = DebianTool::find('promtool', 'prometheus', $why);
        if ($promtool === null) {
            self::markTestSkipped("The figures are right; promtool is needed to validate the exposition: {$why}");
        }
        [$code, $output] = Promtool::check($promtool, $metrics);
        self::assertSame(0, $code, "promtool check metrics: {$output}");
    }

    public function testTheDashboardShowsTheMembersAndFollowsOneThatLeaves(): void
    {
        $why = null;
        $chromium = DebianTool::find('chromium', 'chromium', $why);
        if ($chromium === null) {
            self::markTestSkipped("The browser test needs headless Chromium: {$why}");
        }
        [$a, , $c] = $this->startThree();
        $this->browser = DevToolsClient::start($chromium);
        $page = $this->browser->open("{$a->admin}/dashboard");

        $three = $this->browser->waitFor($page, 'document.getElementById("cluster-panel").hidden === false && document.querySelectorAll("#cluster tr").length === 3 && [...document.querySelectorAll("#cluster tr td:last-child")].every((td) => td.textContent === "member")', 30.0);
        self::assertNotNull($three, 'the members table shows the three members');
        self::assertSame('a (this node)', $this->browser->evaluate($page, 'document.querySelector("#cluster td.self").textContent'));
        self::assertSame(['a (this node)', 'b', 'c'], $this->browser->evaluate($page, '[...document.querySelectorAll("#cluster tr td:first-child")].map((td) => td.textContent)'));
        self::assertStringContainsString('3 members', self::text($this->browser->evaluate($page, 'document.getElementById("cluster-summary").textContent')));

        $c->terminate();
        $two = $this->browser->waitFor($page, 'document.querySelectorAll("#cluster tr").length === 2', 30.0);
        self::assertNotNull($two, "the member that left is gone from the table:\n" . $c->logText());
        self::assertSame(['a (this node)', 'b'], $this->browser->evaluate($page, '[...document.querySelectorAll("#cluster tr td:first-child")].map((td) => td.textContent)'));
        self::assertTrue($this->browser->evaluate($page, 'performance.getEntriesByType("navigation").length === 1'), 'no reload happened');
    }

    /**
     * @return list<NodeProcess> a, b and c, each joined once the one before it has
     */
    private function startThree(): array
    {
        \assert($this->etcd !== null);
        foreach (['a', 'b', 'c'] as $name) {
            $this->nodes[] = new NodeProcess($name, 'etcd://127.0.0.1:' . $this->etcd->port . '/test', $this->dir, "{$this->dir}/{$name}.log", 2, 3);
        }

        return $this->nodes;
    }

    /**
     * The cluster part of node $admin's feed, once $condition holds for it (at most 30 s).
     *
     * @param \Closure(array{node: string, incarnation: int, state: string, revision: int, total: int, members: list<array{node: string, incarnation: int, address: string, workers: int, self: bool, state: string}>}): bool $condition
     *
     * @return array{node: string, incarnation: int, state: string, revision: int, total: int, members: list<array{node: string, incarnation: int, address: string, workers: int, self: bool, state: string}>}
     */
    private function waitForFrame(string $admin, \Closure $condition): array
    {
        $deadline = microtime(true) + 30.0;
        $last = '';
        while (microtime(true) < $deadline) {
            $last = self::get("{$admin}/feed.json");
            $frame = json_decode($last, true);
            /** @var array{node: string, incarnation: int, state: string, revision: int, total: int, members: list<array{node: string, incarnation: int, address: string, workers: int, self: bool, state: string}>}|null $cluster */
            $cluster = \is_array($frame) && \is_array($frame['cluster'] ?? null) ? $frame['cluster'] : null;
            if ($cluster !== null && $condition($cluster)) {
                return $cluster;
            }
            usleep(100_000); // polls the feed until the condition holds or the deadline passes
        }

        self::fail("The feed did not show the expected cluster within 30 s; last frame: {$last}");
    }

    private static function text(mixed $value): string
    {
        return \is_string($value) ? $value : '';
    }

    private static function get(string $url): string
    {
        $body = @file_get_contents($url, false, stream_context_create(['http' => ['timeout' => 10.0, 'ignore_errors' => true]]));

        return \is_string($body) ? $body : '';
    }
}
