<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Persistence\Exception\ActorStoppedException;
use Nexus\Persistence\Exception\CommandHandlerFailedException;
use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\PayloadDecodingException;
use Nexus\Persistence\Exception\PayloadEncodingException;
use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\RecoveryFailedException;
use Nexus\Persistence\Exception\StashFullException;
use Nexus\Persistence\Exception\StoreOverloadedException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Exception\TooManyEventsException;

/**
 * The reply a persistent actor sends instead of the command's own reply when the command failed:
 * which kind of failure (the PersistenceException class) and why. The asker gets it as the
 * answer to its ask (a plain, readonly value with only strings, so it may cross between workers
 * once registered with Workers::registerMessage()); unwrap() turns it back into the exception:
 *
 *     $value = CommandFailed::unwrap($counter->ask('increment')->await());   // throws on failure
 */
final readonly class CommandFailed
{
    /** @var list<class-string<PersistenceException>> */
    private const KINDS = [
        ConcurrentWriteException::class,
        StoreUnavailableException::class,
        StoreOverloadedException::class,
        StashFullException::class,
        RecoveryFailedException::class,
        PayloadEncodingException::class,
        PayloadDecodingException::class,
        TooManyEventsException::class,
        ActorStoppedException::class,
        CommandHandlerFailedException::class,
    ];

    /**
     * @param string $kind the class of the PersistenceException
     */
    public function __construct(
        public string $kind,
        public string $reason,
        public string $persistenceId,
    ) {}

    public static function of(PersistenceException $error, string $persistenceId): self
    {
        return new self($error::class, $error->getMessage(), $persistenceId);
    }

    /**
     * The failure as an exception of its kind (StoreUnavailableException when the kind is not
     * one this version knows).
     */
    public function exception(): PersistenceException
    {
        $class = \in_array($this->kind, self::KINDS, true) ? $this->kind : StoreUnavailableException::class;

        return new $class("{$this->persistenceId}: {$this->reason}");
    }

    /**
     * Returns $reply unless it is a CommandFailed, whose exception it throws.
     *
     * @template T
     *
     * @param T $reply
     *
     * @return T
     */
    public static function unwrap(mixed $reply): mixed
    {
        if ($reply instanceof self) {
            throw $reply->exception();
        }

        return $reply;
    }
}
