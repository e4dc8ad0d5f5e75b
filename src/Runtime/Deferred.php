<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Exception\FutureAlreadySettledException;

/**
 * The writing side of a Future: whoever holds it settles the future exactly once.
 *
 * @template T
 */
final class Deferred
{
    /** @var Future<T> */
    private readonly Future $future;

    public function __construct(Loop $loop)
    {
        $this->future = new Future($loop);
    }

    /**
     * @return Future<T>
     */
    public function future(): Future
    {
        return $this->future;
    }

    /**
     * Fulfils the future. Returns false, changing nothing, when it was already settled.
     *
     * @param T $value
     */
    public function tryResolve(mixed $value): bool
    {
        return $this->future->settle(null, $value);
    }

    public function tryReject(\Throwable $error): bool
    {
        return $this->future->settle($error, null);
    }

    /**
     * @param T $value
     */
    public function resolve(mixed $value): void
    {
        if (!$this->future->settle(null, $value)) {
            throw new FutureAlreadySettledException('This future was already settled; a future settles once.');
        }
    }

    public function reject(\Throwable $error): void
    {
        if (!$this->future->settle($error, null)) {
            throw new FutureAlreadySettledException('This future was already settled; a future settles once.', 0, $error);
        }
    }

    public function isSettled(): bool
    {
        return $this->future->isSettled();
    }
}
