<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Loop;

/**
 * A TCP proxy that holds every chunk it receives for $delay seconds before passing it on, in
 * each direction, keeping the order: a stand-in for a server one network hop away (this kernel
 * has no netem). A 1 ms delay each way adds about 2 ms to every round trip.
 */
final class LatencyProxy
{
    private readonly Listener $listener;
    /** @var array<int, array{DelayedPipe, DelayedPipe}> */
    private array $pairs = [];
    private int $nextId = 0;
    private int $accepted = 0;

    public function __construct(
        private readonly Loop $loop,
        private readonly string $upstream,
        private readonly float $delay,
        string $listenAddress = 'tcp://127.0.0.1:0',
    ) {
        if ($delay < 0.0) {
            throw new \InvalidArgumentException("The delay cannot be negative, got {$delay} s.");
        }
        $this->listener = Listener::listen($loop, $listenAddress, new ListenOptions(backlog: 1024, maxConnections: 1000, tcpNoDelay: true));
        $this->listener->onConnection(function (Connection $client): void {
            $this->accept($client);
        });
    }

    /**
     * Where clients connect: tcp://127.0.0.1:PORT.
     */
    public function address(): string
    {
        return $this->listener->address();
    }

    public function port(): int
    {
        $address = $this->address();

        return (int) substr($address, (int) strrpos($address, ':') + 1);
    }

    /**
     * Connections accepted so far.
     */
    public function accepted(): int
    {
        return $this->accepted;
    }

    /**
     * Client connections open right now.
     */
    public function open(): int
    {
        return \count($this->pairs);
    }

    public function close(): void
    {
        $this->listener->close();
        foreach ($this->pairs as [$up, $down]) {
            $up->closeBoth();
        }
        $this->pairs = [];
    }

    private function accept(Connection $client): void
    {
        ++$this->accepted;
        $id = $this->nextId++;
        $up = new DelayedPipe($this->loop, $client, $this->delay);
        $down = new DelayedPipe($this->loop, null, $this->delay);
        $this->pairs[$id] = [$up, $down];
        $forget = function () use ($id): void {
            unset($this->pairs[$id]);
        };
        $client->onClose(static function () use ($up, $down, $forget): void {
            $up->sourceClosed();
            $down->targetClosed();
            $forget();
        });
        Connector::connect($this->loop, $this->upstream, 5.0)->onSettle(
            static function (?\Throwable $error, mixed $server) use ($client, $up, $down, $forget): void {
                if ($error !== null || !$server instanceof Connection) {
                    $client->close();
                    $forget();

                    return;
                }
                if ($client->isClosed()) {
                    $server->close();

                    return;
                }
                $down->attachSource($server);
                $down->attachTarget($client);
                $up->attachTarget($server);
                $server->onClose(static function () use ($up, $down): void {
                    $down->sourceClosed();
                    $up->targetClosed();
                });
            },
        );
    }
}
