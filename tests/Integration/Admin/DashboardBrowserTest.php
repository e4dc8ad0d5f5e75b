<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Admin;

use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\DevToolsClient;
use Nexus\Tests\Support\ServedNexus;
use PHPUnit\Framework\TestCase;

/**
 * The dashboard in a real browser: headless Chromium (Debian package chromium, installed here
 * when missing and root) loads /dashboard of examples/observability.php, and of a real
 * `bin/nexus serve` with two workers, each running in a child process; a request starts a
 * counter actor, and the page must show it within 2 s, without reloading. With NEXUS_DASHBOARD_SCREENSHOT=path it also saves a screenshot of the --demo
 * system there (docs/img/dashboard.png is made that way).
 */
final class DashboardBrowserTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    /** @var resource|null */
    private $served = null;
    private ?DevToolsClient $browser = null;
    private ?ServedNexus $nexus = null;

    protected function tearDown(): void
    {
        $this->browser?->close();
        $this->nexus?->stop();
        if (\is_resource($this->served)) {
            proc_terminate($this->served, \SIGKILL);
            proc_close($this->served);
        }
    }

    public function testANewActorAppearsOnTheOpenDashboardWithinTwoSeconds(): void
    {
        [$app, $admin] = $this->serve(demo: false);
        $page = $this->openDashboard($admin);

        $started = microtime(true);
        self::assertSame(200, self::post("{$app}/counters/browser-counter"));
        $took = $this->browser()->waitFor($page, 'document.querySelector(\'li[data-path="/user/browser-counter"]\') !== null', 2.0);
        self::assertNotNull($took, \sprintf('the actor was not on the page %.2f s after the request', microtime(true) - $started));

        $text = $this->browser()->evaluate($page, 'document.getElementById("h-actors").textContent + "|" + document.getElementById("status").textContent');
        self::assertSame('4|live', $text, 'the headline counts /user, /system, the observer and the new actor; the feed is live');
        self::assertTrue($this->browser()->evaluate($page, 'performance.getEntriesByType("navigation").length === 1'), 'no reload happened');

        self::assertSame(200, self::post("{$app}/counters/browser-counter/stop"));
        $gone = $this->browser()->waitFor($page, 'document.querySelector(\'li[data-path="/user/browser-counter"]\') === null', 5.0);
        self::assertNotNull($gone, 'a stopped actor leaves the page');
    }

    public function testACounterStartedByARequestAppearsOnTheDashboardOfARealServeWithinTwoSeconds(): void
    {
        $chromium = DebianTool::find('chromium', 'chromium', $why);
        if ($chromium === null) {
            self::markTestSkipped("The browser test needs headless Chromium: {$why}");
        }
        $this->nexus = ServedNexus::start(['tests/Integration/Admin/Fixture/workload-app.php', '--workers=2', '--no-jit']);
        $admin = $this->nexus->admin;
        self::assertNotNull($admin);
        $this->browser = DevToolsClient::start($chromium);
        $page = $this->browser()->open("{$admin}/dashboard");
        // Two workers: each worker's tree is a branch of its own, /worker-N/...
        $live = $this->browser()->waitFor($page, 'document.getElementById("status").className === "live" && document.querySelector(\'li[data-path="/worker-0/user"]\') !== null && document.querySelector(\'li[data-path="/worker-1/user"]\') !== null', 20.0);
        self::assertNotNull($live, "the dashboard shows both workers' trees");

        $started = microtime(true);
        self::assertSame(200, self::post("{$this->nexus->url}/counters/browser-counter"));
        $took = $this->browser()->waitFor($page, 'document.querySelector(\'li[data-path$="/user/browser-counter"]\') !== null', 2.0);
        self::assertNotNull($took, \sprintf('the counter was not on the page %.2f s after the request', microtime(true) - $started));
        self::assertSame('counter', $this->browser()->evaluate($page, 'document.querySelector(\'li[data-path$="/user/browser-counter"] .kind\').textContent'));
        self::assertSame('2 / 2', $this->browser()->evaluate($page, 'document.getElementById("h-workers").textContent'));
        self::assertTrue($this->browser()->evaluate($page, 'document.getElementById("cluster-panel").hidden'), 'no cluster panel when not clustered');
    }

    public function testScreenshotOfTheDemoWhenAsked(): void
    {
        $target = getenv('NEXUS_DASHBOARD_SCREENSHOT');
        if (!\is_string($target) || $target === '') {
            self::markTestSkipped('Set NEXUS_DASHBOARD_SCREENSHOT=docs/img/dashboard.png to refresh the screenshot in the docs.');
        }
        [, $admin] = $this->serve(demo: true);
        $page = $this->openDashboard($admin);
        // Enough samples for the latency chart to show a line.
        $filled = $this->browser()->waitFor($page, 'document.querySelectorAll("#dead .dl").length >= 2 && document.getElementById("c-p99").getAttribute("d").split("L").length > 12', 30.0);
        self::assertNotNull($filled, 'the demo filled the page');
        // Open every branch of the tree, as a user would.
        $this->browser()->evaluate($page, 'document.querySelectorAll("#tree li.collapsed > .row .toggle").forEach((t) => { if (t.textContent) t.click(); }); true');
        $this->browser()->waitFor($page, 'document.querySelectorAll("#tree li.collapsed > .row .toggle:not(:empty)").length === 0', 2.0);
        $png = $this->browser()->screenshot($page);

        self::assertStringStartsWith("\x89PNG", $png);
        file_put_contents(str_starts_with($target, '/') ? $target : self::ROOT . '/' . $target, $png);
    }

    /**
     * @return array{string, string} the app's and the admin listener's base URLs
     */
    private function serve(bool $demo): array
    {
        $chromium = DebianTool::find('chromium', 'chromium', $why);
        if ($chromium === null) {
            self::markTestSkipped("The browser test needs headless Chromium: {$why}");
        }
        $command = [\PHP_BINARY, 'examples/observability.php', '--port=0', '--admin=127.0.0.1:0'];
        if ($demo) {
            $command[] = '--demo';
        }
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, self::ROOT);
        self::assertIsResource($process);
        $this->served = $process;
        stream_set_blocking($pipes[1], false);
        $output = '';
        $deadline = microtime(true) + 15.0;
        while (preg_match('#^app (http://\S+) admin (http://\S+)$#m', $output, $match) !== 1) {
            if (microtime(true) > $deadline) {
                self::fail("examples/observability.php did not say where it listens within 15 s: {$output}");
            }
            $read = [$pipes[1]];
            $write = $except = null;
            stream_select($read, $write, $except, 0, 100_000);
            $output .= (string) fread($pipes[1], 8192);
        }
        $this->browser = DevToolsClient::start($chromium);

        return [$match[1], $match[2]];
    }

    private function browser(): DevToolsClient
    {
        return $this->browser ?? throw new \LogicException('serve() starts the browser first.');
    }

    private function openDashboard(string $admin): string
    {
        $page = $this->browser()->open("{$admin}/dashboard");
        $live = $this->browser()->waitFor($page, 'document.getElementById("status") !== null && document.getElementById("status").className === "live" && document.querySelector(\'li[data-path="/user"]\') !== null', 20.0);
        self::assertNotNull($live, 'the dashboard connected to its live feed');

        return $page;
    }

    private static function post(string $url): int
    {
        $context = stream_context_create(['http' => ['method' => 'POST', 'ignore_errors' => true, 'timeout' => 5.0, 'header' => "Connection: close\r\n"]]);
        $body = @file_get_contents($url, false, $context);
        self::assertIsString($body, "POST {$url} failed");
        $status = $http_response_header[0] ?? '';

        return (int) (explode(' ', $status)[1] ?? 0);
    }
}
