<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\Sqlite\SqliteOptions;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * The SQLite store against real trouble: another connection holding the lock, a read-only file,
 * a corrupt file, a full disk. Each failure is a StoreUnavailableException that says what to fix,
 * nothing acknowledged is lost, and the store works again once the cause is gone.
 */
final class SqliteFailureTest extends TestCase
{
    private Loop $loop;
    private string $directory;
    private ?string $mounted = null;
    private ?string $immutable = null;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->directory = TempDirectory::create('nexus-sqlite-fail-');
    }

    protected function tearDown(): void
    {
        if ($this->immutable !== null) {
            exec('chattr -i ' . escapeshellarg($this->immutable) . ' 2>&1');
        }
        if ($this->mounted !== null) {
            exec('umount ' . escapeshellarg($this->mounted) . ' 2>&1');
        }
        TempDirectory::remove($this->directory);
    }

    public function testAWriteIsAcknowledgedOnlyOnceItsLogIsSyncedAndOneThatCannotBeIsAFailure(): void
    {
        $path = $this->directory . '/db.sqlite';
        $store = new SqliteStore($this->loop, $path);
        self::assertSame([null], $store->writeEvents([self::write('x', 1, 1, 1)])->await());

        // The log disappears under the running store: its commit cannot be made durable, and the
        // write is not acknowledged.
        unlink("{$path}-wal");
        try {
            $store->writeEvents([self::write('x', 2, 1, 1)])->await();
            self::fail('a commit that could not be synced was acknowledged');
        } catch (StoreUnavailableException $e) {
            self::assertStringContainsString('write-ahead log', $e->getMessage());
            self::assertStringContainsString('could not be synced', $e->getMessage());
        }
    }

    public function testTwoConnectionsWritingOneIdCannotInterleave(): void
    {
        $a = new SqliteStore($this->loop, $this->directory . '/db.sqlite');
        $b = new SqliteStore($this->loop, $this->directory . '/db.sqlite');

        self::assertSame([null], $a->writeEvents([self::write('x', 1, 1, 2)])->await());
        $results = $b->writeEvents([self::write('x', 1, 2, 1)])->await();
        self::assertInstanceOf(ConcurrentWriteException::class, $results[0], 'b recovered nothing and tried to write 1');
        self::assertSame([null], $b->writeEvents([self::write('x', 3, 2, 1)])->await(), 'b, having caught up with a newer epoch, writes on');
        $stale = $a->writeEvents([self::write('x', 4, 1, 1)])->await();
        self::assertInstanceOf(ConcurrentWriteException::class, $stale[0], 'a, knowing only its own writes, is fenced by b\'s epoch');

        $epochs = array_map(static fn($event): int => $event->writerEpoch, $a->readEvents('x', 1, 100, 100)->await());
        self::assertSame([1, 1, 2], $epochs);
    }

    public function testALockHeldElsewhereFailsTheWriteAfterTheBusyTimeoutAndPassesWhenReleased(): void
    {
        $path = $this->directory . '/db.sqlite';
        $store = new SqliteStore($this->loop, $path, new SqliteOptions(busyTimeout: 0.05));
        $store->open();
        $other = new \PDO('sqlite:' . $path, null, null, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]);
        $other->exec('BEGIN EXCLUSIVE');

        $error = $this->failure($store->writeEvents([self::write('x', 1, 1, 1)]));
        self::assertStringContainsString('database is locked', $error->getMessage());
        self::assertStringContainsString('busy timeout', $error->getMessage());

        $other->exec('ROLLBACK');
        self::assertSame([null], $store->writeEvents([self::write('x', 1, 1, 1)])->await());
    }

    public function testACorruptFileIsReportedAndTheStoreWorksOnceItIsReplaced(): void
    {
        $path = $this->directory . '/db.sqlite';
        file_put_contents($path, str_repeat('not a database ', 500));
        $store = new SqliteStore($this->loop, $path);

        $error = $this->failure($store->readEvents('x', 1, 10, 10));
        self::assertStringContainsString('corrupt or is not an SQLite database', $error->getMessage());
        self::assertStringContainsString($path, $error->getMessage());

        rename($path, $path . '.broken');
        self::assertSame([null], $store->writeEvents([self::write('x', 1, 1, 1)])->await());
    }

    public function testAReadOnlyFileFailsWritesAndTheStoreWritesAgainOnceItIsWritable(): void
    {
        $path = $this->directory . '/db.sqlite';
        $store = new SqliteStore($this->loop, $path);
        self::assertSame([null], $store->writeEvents([self::write('x', 1, 1, 2)])->await());
        $store->close();
        exec('chattr +i ' . escapeshellarg($path) . ' 2>&1', $output, $code);
        if ($code !== 0) {
            self::markTestSkipped('chattr +i is not available here (needs root and a file system with attributes): ' . implode(' ', $output));
        }
        $this->immutable = $path;

        $store = new SqliteStore($this->loop, $path);
        $error = $this->failure($store->writeEvents([self::write('x', 3, 1, 1)]));
        self::assertMatchesRegularExpression('/read-only|readonly|unable to open/i', $error->getMessage());

        exec('chattr -i ' . escapeshellarg($path));
        $this->immutable = null;
        self::assertSame([null], $store->writeEvents([self::write('x', 3, 1, 1)])->await());
        self::assertCount(3, $store->readEvents('x', 1, 10, 10)->await(), 'nothing written before was lost');
    }

    public function testAFullDiskFailsTheWriteAndNothingAcknowledgedIsLost(): void
    {
        $mount = $this->directory . '/small';
        mkdir($mount);
        exec('mount -t tmpfs -o size=2m tmpfs ' . escapeshellarg($mount) . ' 2>&1', $output, $code);
        if ($code !== 0) {
            self::markTestSkipped('Cannot mount a small tmpfs here (needs root): ' . implode(' ', $output));
        }
        $this->mounted = $mount;
        $store = new SqliteStore($this->loop, $mount . '/db.sqlite');
        $store->open();
        file_put_contents($mount . '/filler', str_repeat("\0", 1024 * 1024));

        $acknowledged = 0;
        $error = null;
        for ($batch = 0; $batch < 1000 && $error === null; ++$batch) {
            try {
                $results = $store->writeEvents([new AtomicWrite('x', $acknowledged + 1, 1, array_fill(0, 20, new Payload('e', 1, PayloadFormat::Json, '"' . str_repeat('x', 500) . '"')))])->await();
                self::assertSame([null], $results);
                $acknowledged += 20;
            } catch (StoreUnavailableException $e) {
                $error = $e;
            }
        }
        self::assertInstanceOf(StoreUnavailableException::class, $error, 'the disk filled up');
        self::assertStringContainsString('full', $error->getMessage());
        self::assertGreaterThan(0, $acknowledged);

        unlink($mount . '/filler');
        self::assertSame([null], $store->writeEvents([new AtomicWrite('x', $acknowledged + 1, 1, [new Payload('e', 1, PayloadFormat::Json, '1')])])->await());
        self::assertCount($acknowledged + 1, $store->readEvents('x', 1, \PHP_INT_MAX, 100_000)->await(), 'every acknowledged event is there');
        $store->close();
    }

    /**
     * @param \Nexus\Runtime\Future<mixed> $future
     */
    private function failure(\Nexus\Runtime\Future $future): StoreUnavailableException
    {
        try {
            $future->await();
        } catch (StoreUnavailableException $e) {
            return $e;
        }
        self::fail('The operation was expected to fail with StoreUnavailableException.');
    }

    private static function write(string $id, int $from, int $epoch, int $count): AtomicWrite
    {
        $events = [];
        for ($i = 0; $i < $count; ++$i) {
            $events[] = new Payload('e', 1, PayloadFormat::Json, (string) ($from + $i));
        }

        return new AtomicWrite($id, $from, $epoch, $events);
    }
}
