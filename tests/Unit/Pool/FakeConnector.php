<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Pool;

use Nexus\Pool\PoolConnector;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * A connector the test drives: connects succeed at once unless $manual (then the test settles
 * them through $pending) or $failWith is set; a dirty connection needs a reset that the test
 * settles through $resets.
 *
 * @implements PoolConnector<FakeConnection>
 */
final class FakeConnector implements PoolConnector
{
    public int $opened = 0;
    /** @var list<FakeConnection> */
    public array $closed = [];
    public bool $manual = false;
    public ?\Throwable $failWith = null;
    /** @var list<Deferred<FakeConnection>> */
    public array $pending = [];
    /** @var list<array{FakeConnection, Deferred<null>}> */
    public array $resets = [];

    public function __construct(private readonly Loop $loop) {}

    public function connect(): Future
    {
        if ($this->failWith !== null) {
            return Future::rejected($this->loop, $this->failWith);
        }
        /** @var Deferred<FakeConnection> $deferred */
        $deferred = new Deferred($this->loop);
        if ($this->manual) {
            $this->pending[] = $deferred;
        } else {
            $deferred->resolve(new FakeConnection(++$this->opened));
        }

        return $deferred->future();
    }

    /**
     * Completes the oldest manual connect.
     */
    public function completeOne(): FakeConnection
    {
        $deferred = array_shift($this->pending) ?? throw new \LogicException('No connect is pending.');
        $connection = new FakeConnection(++$this->opened);
        $deferred->resolve($connection);

        return $connection;
    }

    public function isUsable(object $connection): bool
    {
        return !$connection->broken && !$connection->closed;
    }

    public function reset(object $connection): ?Future
    {
        if (!$connection->dirty) {
            return null;
        }
        ++$connection->resets;
        /** @var Deferred<null> $deferred */
        $deferred = new Deferred($this->loop);
        $this->resets[] = [$connection, $deferred];

        return $deferred->future();
    }

    public function close(object $connection): void
    {
        $connection->closed = true;
        $this->closed[] = $connection;
    }
}
