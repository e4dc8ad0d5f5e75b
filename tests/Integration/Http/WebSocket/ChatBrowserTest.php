<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\DevToolsClient;
use Nexus\Tests\Support\ServedNexus;
use PHPUnit\Framework\TestCase;

/**
 * The demo chat in a real browser: headless Chromium (Debian package chromium, installed when
 * missing and root) opens GET /chat of `nexus serve --workers=2` in two pages of one room; one
 * page sends a message, and both show it.
 */
final class ChatBrowserTest extends TestCase
{
    private ?ServedNexus $served = null;
    private ?DevToolsClient $browser = null;

    protected function tearDown(): void
    {
        $this->browser?->close();
        $this->served?->stop();
    }

    public function testAMessageSentInOnePageShowsInBoth(): void
    {
        $chromium = DebianTool::find('chromium', 'chromium', $why);
        if ($chromium === null) {
            self::markTestSkipped("The browser test needs headless Chromium: {$why}");
        }
        $this->served = ServedNexus::start(['--workers=2', '--no-jit']);
        $browser = $this->browser = DevToolsClient::start($chromium);
        $room = 'browser-' . bin2hex(random_bytes(3));
        $pages = [$browser->open("{$this->served->url}/chat?room={$room}"), $browser->open("{$this->served->url}/chat?room={$room}")];
        foreach ($pages as $i => $page) {
            self::assertNotNull($browser->waitFor($page, 'document.getElementById("status") !== null && document.getElementById("status").className === "connected"', 20.0), "page {$i} connected to its room");
        }

        $browser->evaluate($pages[0], 'document.getElementById("text").value = "Hello from page one ✓"; document.getElementById("send").click(); true');
        foreach ($pages as $i => $page) {
            $shown = $browser->waitFor($page, 'Array.from(document.querySelectorAll("#messages li")).some((li) => li.textContent === "Hello from page one ✓")', 10.0);
            self::assertNotNull($shown, "page {$i} shows the message");
        }
        self::assertSame(1, $browser->evaluate($pages[1], 'document.querySelectorAll("#messages li").length'), 'the second page shows it once');
        self::assertSame('', $browser->evaluate($pages[0], 'document.getElementById("text").value'), 'the sender\'s input was cleared');
    }
}
