<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * Real sockets on 127.0.0.1 and in a temp dir. Every test runs under a watchdog timer that fails
 * it instead of letting a bug hang the suite.
 */
abstract class SocketTestCase extends TestCase
{
    use RunsTheLoop;

    protected const WATCHDOG_SECONDS = 10.0;

    protected Loop $loop;
    private int $watchdog;
    private ?string $tempDir = null;
    /** @var list<Listener|Connection> */
    private array $toClose = [];

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->watchdog = $this->loop->delay(self::WATCHDOG_SECONDS, static function (): never {
            throw new \RuntimeException('Watchdog: the test did not finish within ' . self::WATCHDOG_SECONDS . ' s.');
        });
        $this->loop->unreference($this->watchdog);
    }

    protected function tearDown(): void
    {
        foreach ($this->toClose as $resource) {
            $resource->close();
        }
        $this->loop->cancel($this->watchdog);
        if ($this->tempDir !== null) {
            foreach (glob($this->tempDir . '/*') ?: [] as $file) {
                @unlink($file);
            }
            @rmdir($this->tempDir);
        }
    }

    protected function listen(string $address = 'tcp://127.0.0.1:0', ListenOptions $options = new ListenOptions()): Listener
    {
        $listener = Listener::listen($this->loop, $address, $options);
        $this->toClose[] = $listener;

        return $listener;
    }

    protected function track(Connection $connection): Connection
    {
        $this->toClose[] = $connection;

        return $connection;
    }

    /**
     * A listener that echoes everything back and ends when the client ends.
     */
    protected function echoServer(string $address = 'tcp://127.0.0.1:0', ListenOptions $options = new ListenOptions()): Listener
    {
        $listener = $this->listen($address, $options);
        $listener->onConnection(function (Connection $connection): void {
            $this->track($connection);
            $connection->onData(static function (string $data) use ($connection): void {
                $connection->write($data);
            });
            $connection->onEnd(static function () use ($connection): void {
                $connection->end();
            });
        });

        return $listener;
    }

    protected function tempDir(): string
    {
        if ($this->tempDir === null) {
            $dir = sys_get_temp_dir() . '/nexus-io-' . bin2hex(random_bytes(4));
            mkdir($dir, 0o700);
            $this->tempDir = $dir;
        }

        return $this->tempDir;
    }

    /**
     * Everything the connection receives until EOF.
     *
     * @return Future<string>
     */
    protected function readAll(Connection $connection): Future
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $received = '';
        $connection->onData(static function (string $data) use (&$received): void {
            $received .= $data;
        });
        $connection->onEnd(static function () use ($deferred, &$received): void {
            $deferred->resolve($received);
        });
        $connection->onClose(static function (?\Throwable $reason) use ($deferred, &$received): void {
            if ($reason !== null) {
                $deferred->tryReject($reason);
            } else {
                $deferred->tryResolve($received);
            }
        });

        return $deferred->future();
    }

}
