<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Runtime\Future;

/**
 * A PoolConnector made of closures: connect is required; without isUsable every connection is
 * usable, without reset none needs resetting, without close nothing is done to close one.
 *
 *     new CallbackConnector(
 *         connect: fn(): Future => Connector::connect($loop, 'tcp://127.0.0.1:8080'),
 *         isUsable: fn(Connection $c): bool => !$c->isClosed(),
 *         close: fn(Connection $c) => $c->close(),
 *     );
 *
 * @template C of object
 *
 * @implements PoolConnector<C>
 */
final class CallbackConnector implements PoolConnector
{
    /**
     * @param \Closure(): Future<C>                 $connect
     * @param (\Closure(C): bool)|null              $isUsable
     * @param (\Closure(C): (Future<mixed>|null))|null $reset
     * @param (\Closure(C): void)|null              $close
     */
    public function __construct(
        private readonly \Closure $connect,
        private readonly ?\Closure $isUsable = null,
        private readonly ?\Closure $reset = null,
        private readonly ?\Closure $close = null,
    ) {}

    public function connect(): Future
    {
        return ($this->connect)();
    }

    public function isUsable(object $connection): bool
    {
        return $this->isUsable === null || ($this->isUsable)($connection);
    }

    public function reset(object $connection): ?Future
    {
        return $this->reset === null ? null : ($this->reset)($connection);
    }

    public function close(object $connection): void
    {
        if ($this->close !== null) {
            ($this->close)($connection);
        }
    }
}
