<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

use Nexus\Bench\Db\HttpResponseReader;
use Nexus\Bench\Db\ReadResponse;
use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * One client of the campaign: a keep-alive connection that sends one operation at a time and
 * writes down what it was told (Ledger). A broken connection or an answer later than
 * $requestTimeout makes the operation unknown; the client then reconnects (backing off 50 ms
 * while the server refuses) and goes on until stop().
 */
final class LoadClient
{
    private bool $stopping = false;

    public function __construct(
        private readonly Loop $loop,
        private readonly string $address,
        private readonly OperationSource $operations,
        private readonly Ledger $ledger,
        private readonly float $requestTimeout,
    ) {}

    /**
     * @return Future<null> settles once the client has stopped
     */
    public function start(): Future
    {
        return $this->loop->async(function (): null {
            while (!$this->stopping) {
                $connection = $this->connect();
                if ($connection === null) {
                    $this->pause(0.05);

                    continue;
                }
                $this->serve($connection);
                $connection->close();
            }

            return null;
        });
    }

    public function stop(): void
    {
        $this->stopping = true;
    }

    private function connect(): ?Connection
    {
        try {
            return Connector::connect($this->loop, $this->address, 2.0)->await();
        } catch (\Throwable) {
            return null;
        }
    }

    /**
     * Sends operations on $connection until it breaks, the server closes it, or stop().
     */
    private function serve(Connection $connection): void
    {
        $reader = new HttpResponseReader();
        while (!$this->stopping) {
            $operation = $this->operations->next();
            $this->ledger->sent($operation);
            try {
                $connection->write($operation->kind->request($operation->key));
                $response = $this->response($connection, $reader);
            } catch (\Throwable $e) {
                $this->ledger->unknown($operation, $e::class . ': ' . $e->getMessage());

                return;
            }
            if ($response->status === 200) {
                $this->ledger->acknowledged($operation, $response->body);
            } else {
                $this->ledger->failed($operation, $response->status);
            }
            if ($response->close) {
                return;
            }
        }
    }

    /**
     * @throws \RuntimeException when the connection ends first or the answer takes too long
     */
    private function response(Connection $connection, HttpResponseReader $reader): ReadResponse
    {
        $deadline = $this->loop->now() + $this->requestTimeout;
        while (true) {
            $left = $deadline - $this->loop->now();
            if ($left <= 0) {
                throw new \RuntimeException("no answer within {$this->requestTimeout} s");
            }
            $bytes = $connection->read()->await($left);
            if ($bytes === null) {
                throw new \RuntimeException('the server closed the connection before answering');
            }
            $responses = $reader->feed($bytes);
            if ($responses !== []) {
                return $responses[0];
            }
        }
    }

    private function pause(float $seconds): void
    {
        $pause = new \Nexus\Runtime\Deferred($this->loop);
        $this->loop->delay($seconds, static fn() => $pause->resolve(null));
        $pause->future()->await();
    }
}
