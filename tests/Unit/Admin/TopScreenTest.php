<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Admin;

use Nexus\Admin\TopScreen;
use PHPUnit\Framework\TestCase;

final class TopScreenTest extends TestCase
{
    /**
     * @return array<string, mixed>
     */
    private static function frame(float $t, float $cpu, int $requests): array
    {
        return [
            't' => $t,
            'name' => 'shop',
            'headline' => ['workers' => 2, 'workersUp' => 1, 'actors' => 1234, 'deadLetters' => 3, 'requests' => 5000, 'rps' => 250.0, 'p99' => 0.0123],
            'workers' => [
                ['id' => '0', 'pid' => 41, 'up' => true, 'cpuSeconds' => $cpu, 'rssBytes' => 52_428_800, 'requests' => $requests, 'restarts' => 1],
                ['id' => '1', 'pid' => 42, 'up' => false, 'cpuSeconds' => 0.0, 'rssBytes' => 0, 'requests' => null, 'restarts' => 4],
            ],
            'actors' => ['nodes' => [
                ['path' => '/user/a', 'worker' => '0', 'mailbox' => 2],
                ['path' => '/user/b', 'worker' => '1', 'mailbox' => 900],
                ['path' => '/user/c', 'worker' => '0', 'mailbox' => null],
            ], 'total' => 3],
            'deadLetters' => [
                ['seq' => 3, 'at' => 0.0, 'message' => 'App\\Ping', 'recipient' => '/user/gone', 'reason' => 'recipient terminated'],
            ],
            'pools' => [['name' => 'main', 'worker' => '0', 'kind' => 'postgres', 'open' => 4, 'inUse' => 2, 'waiting' => 0, 'max' => 10]],
        ];
    }

    public function testTheScreenShowsHeadlineWorkersDeepestMailboxesDeadLettersAndPools(): void
    {
        $screen = new TopScreen(200, 2);
        $screen->render(self::frame(100.0, 10.0, 1000), '127.0.0.1:9090');
        $text = $screen->render(self::frame(102.0, 11.0, 1500), '127.0.0.1:9090');

        self::assertStringContainsString('workers 1/2 up   actors 1,234   requests 5,000   req/s 250.0   p99 12.30 ms   dead letters 3', $text);
        self::assertMatchesRegularExpression('/^0 +41 +50% +50\.0 MiB +250\.0 +1  up$/m', $text, 'CPU and req/s from the previous frame');
        self::assertMatchesRegularExpression('/^1 +42 +0% +0\.0 MiB +- +4  DOWN$/m', $text);
        self::assertMatchesRegularExpression('/ACTOR.*\n\/user\/b +900  1\n\/user\/a +2  0\n… 1 more/', $text, 'deepest first, cut at the row limit');
        self::assertStringContainsString('App\\Ping -> /user/gone (recipient terminated)', $text);
        self::assertMatchesRegularExpression('/^main +0 +postgres +4 +2 +0 +10$/m', $text);
    }

    public function testANodeOfAClusterShowsItsMembersThisNodeMarked(): void
    {
        $frame = self::frame(1.0, 0.0, 0) + ['cluster' => [
            'node' => 'b', 'incarnation' => 40, 'state' => 'member', 'detail' => '', 'revision' => 57, 'settled' => false, 'total' => 3,
            'members' => [
                ['node' => 'a', 'incarnation' => 12, 'address' => '10.0.0.5:7400', 'workers' => 2, 'self' => false, 'state' => 'member'],
                ['node' => 'b', 'incarnation' => 40, 'address' => '10.0.0.6:7400', 'workers' => 2, 'self' => true, 'state' => 'member'],
                ['node' => 'c', 'incarnation' => 55, 'address' => '10.0.0.7:7400', 'workers' => 4, 'self' => false, 'state' => 'joining'],
            ],
        ]];
        $text = (new TopScreen(200, 8))->render($frame, 'x');

        self::assertStringContainsString('CLUSTER  this node b (incarnation 40) member   view revision 57 (settling)   3 members', $text);
        self::assertMatchesRegularExpression('/^a +12 10\.0\.0\.5:7400 +2  member$/m', $text);
        self::assertMatchesRegularExpression('/^b \* +40 10\.0\.0\.6:7400 +2  member$/m', $text, 'this node is marked');
        self::assertMatchesRegularExpression('/^c +55 10\.0\.0\.7:7400 +4  joining$/m', $text);
    }

    public function testNothingAboutAClusterWhenNotClustered(): void
    {
        $text = (new TopScreen(200, 8))->render(self::frame(1.0, 0.0, 0) + ['cluster' => null], 'x');

        self::assertStringNotContainsString('CLUSTER', $text);
    }

    public function testLinesAreCutToTheWidth(): void
    {
        $text = (new TopScreen(60))->render(self::frame(1.0, 0.0, 0), 'x');

        foreach (explode("\n", $text) as $line) {
            self::assertLessThanOrEqual(60, mb_strwidth($line));
        }
    }
}
