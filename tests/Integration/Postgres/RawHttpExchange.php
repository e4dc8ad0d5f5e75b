<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Io\Connection;

/**
 * One request with Connection: close over a raw client connection, and everything the server sent
 * back until it closed.
 */
final class RawHttpExchange
{
    public string $response = '';
    public bool $closed = false;

    public function __construct(Connection $connection, string $path)
    {
        $connection->onData(function (string $data): void {
            $this->response .= $data;
        });
        $connection->onEnd(function () use ($connection): void {
            $this->closed = true;
            $connection->close();
        });
        $connection->write("GET {$path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    }
}
