<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Worker\Exception\PoolConfigurationException;
use Nexus\Worker\Exception\PoolStartException;
use Nexus\Worker\HttpWorker;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\WorkerPool;
use PHPUnit\Framework\TestCase;

final class PoolOptionsTest extends TestCase
{
    public function testZeroWorkersMeansOnePerCore(): void
    {
        self::assertSame(PoolOptions::cores(), (new PoolOptions(workers: 0))->workerCount());
        self::assertSame(3, (new PoolOptions(workers: 3))->workerCount());
    }

    public function testOptionsThatCannotWorkAreRefused(): void
    {
        foreach ([
            static fn() => new PoolOptions(workers: -1),
            static fn() => new PoolOptions(port: 70000),
            static fn() => new PoolOptions(maxRequests: -5),
            static fn() => new PoolOptions(readyTimeout: 0.0),
            static fn() => new PoolOptions(spin: 1.0),
        ] as $i => $make) {
            try {
                $make();
                self::fail("options #{$i} were accepted");
            } catch (PoolConfigurationException $e) {
                self::assertNotSame('', $e->getMessage());
            }
        }
    }

    public function testARuntimeDirectoryTooLongForUnixSocketsIsAClearError(): void
    {
        $pool = new WorkerPool(new HttpWorker(static function (): void {}), new PoolOptions(host: null, runtimeDir: '/tmp/' . str_repeat('d', 90)));

        $this->expectException(PoolStartException::class);
        $this->expectExceptionMessage('Set PoolOptions::$runtimeDir (or TMPDIR) to a shorter directory');
        $pool->open();
    }

    public function testOpeningAPoolRemovesRuntimeDirectoriesOfDeadMastersOnly(): void
    {
        $base = sys_get_temp_dir() . '/nexus-stale-test-' . getmypid();
        @mkdir($base, 0o700);
        $dead = "{$base}/nexus-999999-0badcafe";
        $alive = \sprintf('%s/nexus-%d-00c0ffee', $base, getmypid());
        $foreign = "{$base}/nexus-999998-deadbeef";
        foreach ([$dead, $alive, $foreign] as $dir) {
            mkdir($dir, 0o700);
            symlink("{$dir}/worker-0-1.sock", "{$dir}/worker-0.sock");
        }
        touch("{$foreign}/notes.txt");

        $pool = new WorkerPool(new HttpWorker(static function (): void {}), new PoolOptions(host: null, runtimeDir: $base));
        $pool->open();

        self::assertDirectoryDoesNotExist($dead, 'a dead master\'s directory of sockets is removed');
        self::assertDirectoryExists($alive, 'a live master\'s directory stays');
        self::assertFileExists("{$foreign}/notes.txt", 'a directory holding anything but sockets stays');
        exec('rm -rf ' . escapeshellarg($base));
    }
}
