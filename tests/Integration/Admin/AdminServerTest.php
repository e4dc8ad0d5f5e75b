<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Admin;

use Nexus\Admin\AdminAddress;
use Nexus\Admin\CheckResult;
use Nexus\Admin\HealthChecks;
use Nexus\Metrics\PrometheusText;
use Nexus\Runtime\Deferred;
use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\Promtool;

/**
 * The admin endpoints over real sockets, against a known workload.
 */
final class AdminServerTest extends AdminTestCase
{
    private bool $databaseUp = true;

    protected function checks(): HealthChecks
    {
        $loop = $this->loop;

        return (new HealthChecks($this->loop, timeout: 0.3))
            ->add('workers', static fn(): CheckResult => CheckResult::ok('1/1 up'))
            ->add('postgres', fn(): CheckResult => $this->databaseUp ? CheckResult::ok('select 1 in 0.4 ms') : CheckResult::fail('connection refused by 10.0.0.5:5432'))
            ->add('slow', static function () use ($loop): CheckResult {
                /** @var Deferred<CheckResult> $never */
                $never = new Deferred($loop);

                return $never->future()->await();
            });
    }

    public function testAKnownWorkloadGivesExactlyThoseCountsAndPassesPromtool(): void
    {
        $app = $this->app->address();
        foreach (['a', 'b', 'c', 'd', 'e'] as $name) { // M = 5 actors
            self::assertSame(200, $this->request($app, 'POST', "/counters/{$name}")->status);
        }
        foreach ([['/hello', 200], ['/hello', 200], ['/nowhere', 404]] as [$target, $status]) {
            self::assertSame($status, $this->request($app, 'GET', $target)->status);
        }
        $stopped = $this->system->lookup('/user/e');
        self::assertNotNull($stopped);
        $this->system->stop($stopped);
        $this->runUntil(fn(): bool => $this->system->lookup('/user/e') === null);
        for ($i = 0; $i < 3; ++$i) { // K = 3 dead letters
            $stopped->tell("late {$i}");
        }

        $body = $this->waitForMetrics([
            'nexus_actors_started_total{scope="user"} 5',
            'nexus_actors_stopped_total{scope="user"} 1',
            'nexus_actors_live{scope="user"} 4',
            'nexus_actors_live{scope="system"} 3',
            'nexus_dead_letters_total{reason="recipient terminated"} 3',
            'nexus_dead_letters_total{reason="mailbox full"} 0',
            'http_server_request_duration_seconds_count{http_request_method="POST",http_route="/counters/{name}",http_response_status_code="200"} 5',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/hello",http_response_status_code="200"} 2',
            'http_server_request_duration_seconds_count{http_request_method="GET",http_route="",http_response_status_code="404"} 1',
            'http_server_active_requests 0',
        ]);

        $promtool = DebianTool::find('promtool', 'prometheus', $why);
        if ($promtool === null) {
            self::markTestSkipped("The counts are right; promtool is needed to validate the exposition: {$why}");
        }
        [$code, $output] = Promtool::check($promtool, $body);
        self::assertSame(0, $code, "promtool check metrics: {$output}\n{$body}");
    }

    public function testMetricsHaveTheExpositionContentType(): void
    {
        $response = $this->admin('/metrics');

        self::assertSame(200, $response->status);
        self::assertSame(PrometheusText::CONTENT_TYPE, $response->header('Content-Type'));
        self::assertSame('no-store', $response->header('Cache-Control'));
    }

    public function testLivezIsOpaque(): void
    {
        $response = $this->admin('/livez');

        self::assertSame(200, $response->status);
        self::assertSame("ok\n", $response->body);
    }

    public function testReadyzGivesEachCheckWithDetailsToALoopbackClient(): void
    {
        $response = $this->admin('/readyz');

        self::assertSame(503, $response->status, 'the slow check never answers');
        self::assertSame([
            'status' => 'not ready',
            'checks' => [
                'workers' => ['ok' => true, 'detail' => '1/1 up'],
                'postgres' => ['ok' => true, 'detail' => 'select 1 in 0.4 ms'],
                'slow' => ['ok' => false, 'detail' => 'no answer within 0.3 s'],
            ],
        ], self::json($response->body));
    }

    public function testReadyzRedactsDetailsForAClientNotOnLoopback(): void
    {
        $this->databaseUp = false;
        $public = $this->admin->listen(AdminAddress::parse('0.0.0.0:0') ?? throw new \LogicException());
        $port = (int) substr($public, strrpos($public, ':') + 1);
        $local = $this->request("tcp://127.0.0.1:{$port}", 'GET', '/readyz');
        self::assertStringContainsString('10.0.0.5', $local->body, 'a loopback client of a public listener sees the details');
        $external = null;
        foreach (explode(' ', trim((string) shell_exec('hostname -I 2>/dev/null'))) as $ip) {
            if (filter_var($ip, \FILTER_VALIDATE_IP, \FILTER_FLAG_IPV4) !== false && !str_starts_with($ip, '127.')) {
                $external = $ip;
                break;
            }
        }
        if ($external === null) {
            self::markTestSkipped('This machine has no IPv4 address besides loopback to connect from.');
        }

        $response = $this->request("tcp://{$external}:{$port}", 'GET', '/readyz');

        self::assertSame(503, $response->status);
        self::assertSame(['workers' => ['ok' => true], 'postgres' => ['ok' => false], 'slow' => ['ok' => false]], self::at(self::json($response->body), 'checks'));
        self::assertStringNotContainsString('10.0.0.5', $response->body);
        self::assertStringContainsString('redacted', $response->body);
    }

    public function testTheDashboardIsOneSelfContainedPage(): void
    {
        $response = $this->admin('/dashboard');

        self::assertSame(200, $response->status);
        self::assertSame('text/html; charset=utf-8', $response->header('Content-Type'));
        self::assertStringContainsString("default-src 'none'", (string) $response->header('Content-Security-Policy'));
        self::assertStringContainsString('new EventSource(', $response->body);
        self::assertDoesNotMatchRegularExpression('#<script[^>]+src=|<link[^>]+href=|https?://|@import|url\(#i', $response->body, 'no external asset');
        self::assertSame('/dashboard', $this->admin('/')->header('Location'));
    }

    public function testTheFeedStreamsFramesAndShowsANewActor(): void
    {
        $client = $this->client($this->adminAddress);
        $client->send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runUntil(static fn(): bool => substr_count($client->raw, 'data: ') >= 1);
        self::assertStringContainsString('Content-Type: text/event-stream; charset=utf-8', $client->raw);
        self::assertSame(1, $this->admin->feed->clients());

        $this->request($this->app->address(), 'POST', '/counters/fresh');
        $this->runUntil(static fn(): bool => str_contains($client->raw, '"path":"/user/fresh"'));

        $frames = self::frames($client->raw);
        $last = $frames[\count($frames) - 1];
        self::assertSame('admin-test', self::at($last, 'name'));
        self::assertSame(4, self::at($last, 'headline', 'actors'), '/user, /system, the view\'s observer and /user/fresh');
        self::assertSame(['/user', '/user/fresh', '/system', '/system/nexus-admin-view'], array_column(self::list($last, 'actors', 'nodes'), 'path'), 'parents before children, depth first');
        self::assertSame(['path' => '/user/fresh', 'worker' => '0', 'kind' => 'AdminTestCase.php:55', 'mailbox' => 0, 'processed' => 0], self::at($last, 'actors', 'nodes', 1), 'a behavior\'s kind is where its handler was written');

        $fresh = $this->system->lookup('/user/fresh');
        self::assertNotNull($fresh);
        for ($i = 0; $i < 3; ++$i) {
            $fresh->tell($i);
        }
        $this->runUntil(static fn(): bool => str_contains($client->raw, '"path":"/user/fresh","worker":"0","kind":"AdminTestCase.php:55","mailbox":0,"processed":3'));
        self::assertSame(getmypid(), self::at($last, 'workers', 0, 'pid'));
    }

    public function testTheFeedFiltersActorsByPath(): void
    {
        foreach (['orders-1', 'orders-2', 'users-1'] as $name) {
            $this->request($this->app->address(), 'POST', "/counters/{$name}");
        }
        $this->runUntil(fn(): bool => $this->view->actors('/user/', 10)['total'] === 3);

        $frame = self::json($this->admin('/feed.json?q=orders')->body);

        self::assertSame(['/user/orders-1', '/user/orders-2'], array_column(self::list($frame, 'actors', 'nodes'), 'path'));
        self::assertSame(2, self::at($frame, 'actors', 'total'));
        self::assertSame(6, self::at($frame, 'headline', 'actors'));
    }

    public function testDeadLettersReachTheFeedAsTheyHappen(): void
    {
        $this->request($this->app->address(), 'POST', '/counters/gone');
        $ref = $this->system->lookup('/user/gone');
        self::assertNotNull($ref);
        $this->system->stop($ref);
        $this->runUntil(fn(): bool => $this->system->lookup('/user/gone') === null);
        $ref->tell('hello?');
        $this->runUntil(fn(): bool => $this->view->deadLetters(10) !== []);

        $frame = self::json($this->admin('/feed.json')->body);

        self::assertSame('/user/gone', self::at($frame, 'deadLetters', 0, 'recipient'));
        self::assertSame('recipient terminated', self::at($frame, 'deadLetters', 0, 'reason'));
        self::assertSame('string', self::at($frame, 'deadLetters', 0, 'message'), 'the type, never the payload');
        self::assertSame(1, self::at($frame, 'headline', 'deadLetters'));
    }

    public function testStoppingTheAdminServerEndsTheLiveFeeds(): void
    {
        $client = $this->client($this->adminAddress);
        $client->send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runUntil(static fn(): bool => str_contains($client->raw, 'data: '));

        $stopped = $this->admin->stop(5.0);
        $this->runUntil(static fn(): bool => $stopped->isSettled());

        self::assertStringEndsWith("0\r\n\r\n", $client->raw, 'the stream ended properly, not cut');
        self::assertSame(0, $this->admin->feed->clients());
    }

    /**
     * @return list<array<mixed>>
     */
    private static function frames(string $raw): array
    {
        preg_match_all('/^data: (\{.*\})$/m', $raw, $matches);

        return array_map(self::json(...), $matches[1]);
    }
}
