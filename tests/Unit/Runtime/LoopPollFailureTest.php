<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Driver\StreamSelectDriver;
use Nexus\Runtime\Exception\PollFailedException;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * stream_select() refuses the whole set when one descriptor is 1024 or more. The loop must not
 * spin silently serving nothing: it drops the watchers it cannot poll, says so, and serves the rest.
 * (The epoll driver's side of this is in Driver/EpollDriverTest.)
 */
final class LoopPollFailureTest extends TestCase
{
    public function testADescriptorPastFdSetsizeIsDroppedAndReportedAndTheOthersAreStillServed(): void
    {
        $limits = posix_getrlimit();
        $limit = \is_array($limits) ? ($limits['soft openfiles'] ?? '0') : '0';
        if ($limit !== 'unlimited' && (int) (\is_scalar($limit) ? $limit : 0) < 1200) {
            self::markTestSkipped('The descriptor limit is too low to open a descriptor past 1024 (raise ulimit -n).');
        }
        [$low, $lowPeer] = self::pair();
        $filler = [];
        for ($i = 0; $i < 520; ++$i) {
            $filler[] = self::pair();
        }
        [$high, $highPeer] = self::pair(); // numbered above 1024 now
        $loop = new Loop(driver: new StreamSelectDriver());
        $errors = [];
        $loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        $served = [];
        $loop->onReadable($low, static function ($stream) use (&$served): void {
            $served[] = 'low: ' . fread($stream, 100);
        });
        $loop->onReadable($high, static function ($stream) use (&$served): void {
            $served[] = 'high: ' . fread($stream, 100);
        });
        fwrite($lowPeer, 'a');
        fwrite($highPeer, 'b');

        for ($turn = 0; $turn < 3 && $served === []; ++$turn) {
            $loop->tick();
        }

        self::assertSame(['low: a'], $served, 'the stream it can poll is served');
        self::assertCount(1, $errors, 'reported once, not on every turn');
        self::assertInstanceOf(PollFailedException::class, $errors[0]);
        self::assertMatchesRegularExpression('/stopped watching 1 stream\(s\).*descriptor \d{4}/', $errors[0]->getMessage());
        fwrite($lowPeer, 'c');
        $loop->tick();
        self::assertSame(['low: a', 'low: c'], $served);
        self::assertCount(1, $errors);
        unset($filler);
    }

    public function testAStreamClosedWhileWatchedIsDroppedAndReported(): void
    {
        [$mine, $theirs] = self::pair();
        [$other, $otherPeer] = self::pair();
        $loop = new Loop(driver: new StreamSelectDriver());
        $errors = [];
        $loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        $loop->onReadable($mine, static function (): void {});
        $got = '';
        $loop->onReadable($other, static function ($stream) use (&$got): void {
            $got .= fread($stream, 10);
        });
        fclose($mine);
        fwrite($otherPeer, 'x');
        $loop->tick();
        $loop->tick();

        self::assertSame('x', $got);
        self::assertCount(1, $errors);
        self::assertStringContainsString('a closed stream', $errors[0]->getMessage());
        fclose($theirs);
    }

    /**
     * @return array{resource, resource}
     */
    private static function pair(): array
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            self::fail('no socket pair');
        }

        return [$pair[0], $pair[1]];
    }
}
