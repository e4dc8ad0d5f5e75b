<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Runtime\Loop;

/**
 * A raw-socket server on the test's loop for the hostile cases: each time a request head has
 * arrived on a connection, $script($connection, $head, $count) answers it with whatever bytes it
 * likes (or none, or closes). It counts connections accepted and still open.
 */
final class RawServer
{
    public int $accepted = 0;
    public int $open = 0;
    /** @var list<string> request heads received, in order */
    public array $requests = [];
    private readonly Listener $listener;
    /** @var list<Connection> */
    private array $connections = [];

    /**
     * @param \Closure(Connection, string, int): void $script
     */
    public function __construct(Loop $loop, private readonly \Closure $script)
    {
        $this->listener = Listener::listen($loop, 'tcp://127.0.0.1:0');
        $this->listener->onConnection(function (Connection $connection): void {
            ++$this->accepted;
            ++$this->open;
            $this->connections[] = $connection;
            $buffer = '';
            $connection->onClose(function (): void {
                --$this->open;
            });
            $connection->onEnd(static function () use ($connection): void {
                $connection->close();
            });
            $connection->onData(function (string $bytes) use ($connection, &$buffer): void {
                $buffer .= $bytes;
                while (($end = strpos($buffer, "\r\n\r\n")) !== false) {
                    $head = substr($buffer, 0, $end + 4);
                    $buffer = substr($buffer, $end + 4);
                    $this->requests[] = $head;
                    ($this->script)($connection, $head, \count($this->requests));
                    if ($connection->isClosed()) {
                        return;
                    }
                }
            });
        });
    }

    public function url(string $path = '/'): string
    {
        return str_replace('tcp://', 'http://', $this->listener->address()) . $path;
    }

    public function close(): void
    {
        foreach ($this->connections as $connection) {
            $connection->close();
        }
        $this->listener->close();
    }
}
