<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Actor\Message\Kill;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Worker\Exception\UnregisteredMessageClassException;

/**
 * The classes whose objects may cross between workers. Scalars, null and arrays of them always
 * may; an object only when its class (exactly, not a parent) is registered here, checked at the
 * sender before anything is sent.
 */
final class MessageClasses
{
    /** @var array<class-string, true> */
    private array $classes = [];
    /** @var list<class-string> */
    private array $list = [];

    public function __construct()
    {
        $this->register(
            PoisonPill::class,
            Kill::class,
            Internal\RemoteAskFailed::class,
            Internal\RemoteWatch::class,
            Internal\RemoteUnwatch::class,
            Internal\RemoteTerminated::class,
        );
    }

    /**
     * @param class-string ...$classes
     */
    public function register(string ...$classes): void
    {
        foreach ($classes as $class) {
            if (!class_exists($class)) {
                throw new UnregisteredMessageClassException("Cannot register {$class} as a message: no such class (is it autoloadable?).");
            }
            if (!isset($this->classes[$class])) {
                $this->classes[$class] = true;
                $this->list[] = $class;
            }
        }
    }

    public function has(string $class): bool
    {
        return isset($this->classes[$class]);
    }

    /**
     * @return list<class-string>
     */
    public function all(): array
    {
        return $this->list;
    }

    /**
     * Throws unless every object in $message, however deep, is of a registered class. Resources
     * and closures can never cross.
     *
     * @throws UnregisteredMessageClassException
     */
    public function check(mixed $message): void
    {
        if (\is_array($message)) {
            foreach ($message as $value) {
                if (\is_array($value) || \is_object($value) || \is_resource($value)) {
                    $this->check($value);
                }
            }
        } elseif (\is_object($message)) {
            if (!isset($this->classes[$message::class])) {
                throw new UnregisteredMessageClassException(\sprintf(
                    'Cannot send a %s to another worker: register its class as a message first (Workers::registerMessage(%s::class)), on every worker.',
                    $message::class,
                    $message::class,
                ));
            }
            foreach ((array) $message as $value) {
                if (\is_array($value) || \is_object($value) || \is_resource($value)) {
                    $this->check($value);
                }
            }
        } elseif (\is_resource($message)) {
            throw new UnregisteredMessageClassException('Cannot send a resource to another worker: it only means something in the process that opened it.');
        }
    }
}
