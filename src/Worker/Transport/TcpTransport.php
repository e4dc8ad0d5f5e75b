<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * Links between machines (the nodes of a cluster): TCP with TCP_NODELAY on both ends, so an ask's
 * small frame leaves at once. Anyone on the network can connect, so the handshake is what keeps
 * strangers out: until a peer has proved it knows the cluster secret it may send frames of
 * Frames::HANDSHAKE_PAYLOAD bytes at most, and it gets nothing but the Challenge.
 *
 * With LinkTls the links are mutual TLS inside TCP: the dialling end verifies the listening end's
 * certificate against the CA (and its name, see LinkTls), the listening end requires and verifies
 * the dialler's against the same CA; the same frames and handshake then run inside. Both TLS handshakes run on the loop
 * within the link's connect timeout (dialling) or TLS_ACCEPT_TIMEOUT (accepting). A peer that
 * does not speak TLS, or whose certificate does not verify, is closed; the failure is logged once
 * per peer address (at most MAX_LOGGED_PEERS remembered, then forgotten all at once) and the
 * link retries as for any unreachable peer. Without LinkTls nothing of this runs.
 */
final class TcpTransport implements Transport
{
    /** Seconds an accepted connection gets to finish its TLS handshake. */
    public const TLS_ACCEPT_TIMEOUT = 5.0;
    private const MAX_LOGGED_PEERS = 1_024;

    /** @var array<string, true> peer addresses whose TLS failure was logged */
    private array $logged = [];

    public function __construct(
        private readonly ?LinkTls $tls = null,
        private readonly ?LoggerInterface $logger = null,
    ) {}

    public function isTls(): bool
    {
        return $this->tls !== null;
    }

    public function reaches(string $address): bool
    {
        return str_starts_with($address, 'tcp://');
    }

    public function connect(Loop $loop, string $address, float $timeout, int $writeHighWaterMark): Future
    {
        $tls = $this->tls;
        if ($tls === null) {
            return Connector::connect($loop, $address, $timeout, $writeHighWaterMark, tcpNoDelay: true);
        }
        $deadline = $loop->now() + $timeout;
        /** @var Deferred<Connection> $secured */
        $secured = new Deferred($loop);
        Connector::connect($loop, $address, $timeout, $writeHighWaterMark, tcpNoDelay: true)
            ->onSettle(function (?\Throwable $error, mixed $connection) use ($loop, $address, $tls, $deadline, $secured): void {
                if ($error !== null || !$connection instanceof Connection) {
                    $secured->reject($error ?? new \LogicException('The connector gave no connection.'));

                    return;
                }
                $host = trim((string) parse_url($address, \PHP_URL_HOST), '[]');
                $connection->startTls($tls->clientOptions($host), false, max(0.001, $deadline - $loop->now()))
                    ->onSettle(function (?\Throwable $error) use ($connection, $address, $secured): void {
                        if ($error !== null) {
                            $this->logOnce($address, 'TLS link to {peer} refused: {error}', $error);
                            $secured->reject($error);

                            return;
                        }
                        unset($this->logged[$address]);
                        $secured->resolve($connection);
                    });
            });

        return $secured->future();
    }

    public function listen(Loop $loop, string $address, LoggerInterface $logger): Listener
    {
        return Listener::listen($loop, $address, new ListenOptions(tcpNoDelay: true), $logger);
    }

    /**
     * Hands each connection accepted on $listener to $accepted: at once without TLS, after its
     * TLS handshake as the server with it (a connection whose handshake fails is closed).
     *
     * @param \Closure(Connection): void $accepted
     */
    public function accept(Listener $listener, \Closure $accepted): void
    {
        $tls = $this->tls;
        if ($tls === null) {
            $listener->onConnection($accepted);

            return;
        }
        $options = $tls->serverOptions();
        $listener->onConnection(function (Connection $connection) use ($options, $accepted): void {
            $peer = $connection->remoteAddress() ?? 'an unknown address';
            $connection->startTls($options, true, self::TLS_ACCEPT_TIMEOUT)
                ->onSettle(function (?\Throwable $error) use ($connection, $peer, $accepted): void {
                    if ($error !== null) {
                        $this->logOnce(preg_replace('/:\d+$/', '', $peer) ?? $peer, 'TLS link from {peer} refused: {error}', $error);

                        return;
                    }
                    unset($this->logged[preg_replace('/:\d+$/', '', $peer) ?? $peer]);
                    $accepted($connection);
                });
        });
    }

    private function logOnce(string $peer, string $message, \Throwable $error): void
    {
        if (isset($this->logged[$peer])) {
            return;
        }
        if (\count($this->logged) >= self::MAX_LOGGED_PEERS) {
            $this->logged = [];
        }
        $this->logged[$peer] = true;
        $this->logger?->warning($message, ['peer' => $peer, 'error' => $error->getMessage()]);
    }
}
