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
    /**
     * What check() must look into, per registered class. For a readonly class: null when every
     * property is typed as a scalar (nothing inside can be an object), else the public properties
     * that may hold one. false (every property is looked at) for any other class, and for one
     * with a private or protected property that may hold an object.
     *
     * @var array<class-string, list<string>|false|null>
     */
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
            if (!\array_key_exists($class, $this->classes)) {
                $this->classes[$class] = self::plan($class);
                $this->list[] = $class;
            }
        }
    }

    public function has(string $class): bool
    {
        return \array_key_exists($class, $this->classes);
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
            $class = $message::class;
            if (!\array_key_exists($class, $this->classes)) {
                throw new UnregisteredMessageClassException(\sprintf(
                    'Cannot send a %s to another worker: register its class as a message first (Workers::registerMessage(%s::class)), on every worker.',
                    $class,
                    $class,
                ));
            }
            $plan = $this->classes[$class];
            if ($plan === null) {
                return;
            }
            if ($plan === false) {
                $values = (array) $message;
            } else {
                $values = [];
                foreach ($plan as $property) {
                    $values[] = $message->{$property} ?? null;
                }
            }
            foreach ($values as $value) {
                if (\is_array($value) || \is_object($value) || \is_resource($value)) {
                    $this->check($value);
                }
            }
        } elseif (\is_resource($message)) {
            throw new UnregisteredMessageClassException('Cannot send a resource to another worker: it only means something in the process that opened it.');
        }
    }

    /**
     * @param class-string $class
     *
     * @return list<string>|false|null
     */
    private static function plan(string $class): array|false|null
    {
        $root = new \ReflectionClass($class);
        // Only a readonly class cannot grow dynamic properties, which no plan would see.
        if (!$root->isReadOnly() || $root->hasMethod('__serialize') || $root->hasMethod('__sleep')) {
            return false;
        }
        $walk = [];
        for ($reflection = $root; $reflection !== false; $reflection = $reflection->getParentClass()) {
            foreach ($reflection->getProperties() as $property) {
                if ($property->isStatic() || self::holdsScalarsOnly($property->getType())) {
                    continue;
                }
                if (!$property->isPublic()) {
                    return false;
                }
                $walk[$property->getName()] = true;
            }
        }
        return $walk === [] ? null : array_keys($walk);
    }

    private static function holdsScalarsOnly(?\ReflectionType $type): bool
    {
        if ($type instanceof \ReflectionNamedType) {
            return $type->isBuiltin() && \in_array($type->getName(), ['int', 'float', 'string', 'bool', 'null', 'false', 'true'], true);
        }
        if ($type instanceof \ReflectionUnionType) {
            foreach ($type->getTypes() as $member) {
                if (!self::holdsScalarsOnly($member)) {
                    return false;
                }
            }

            return true;
        }

        return false;
    }
}
