<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Actor\Message\Kill;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\Traced;
use Nexus\Trace\TraceContext;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\Exception\UnregisteredMessageClassException;

/**
 * The classes whose objects may cross between workers. Scalars, null and arrays of them always
 * may; an object only when its class (exactly, not a parent) is registered here, checked at the
 * sender before anything is sent. The receiving worker decodes objects of registered classes only
 * (IgbinaryGuard, and allowed_classes for serialize()).
 *
 * check() also bounds a message: at most MAX_DEPTH levels of arrays and objects, and it returns an
 * estimate of the message's encoded size (every string and array key counted, so the estimate is
 * never far below the real size) for the per-message and per-frame byte bounds of the links.
 */
final class MessageClasses
{
    /** Levels of arrays and objects inside one message at most. */
    public const MAX_DEPTH = 64;
    /** check() found an object. */
    public const OBJECTS = 1;
    /**
     * check() found an object whose class writes itself (__serialize, Serializable, an enum, an
     * internal class) or lies beyond the first 255 registered: igbinary may encode it in a way
     * IgbinaryGuard refuses, so the sender checks its own batch.
     */
    public const CUSTOM = 2;

    /**
     * What check() must look into, per registered class. For a readonly class: null when every
     * property is typed as a scalar (nothing inside can be an object), else the public properties
     * that may hold one. false (every property is looked at) for any other class, and for one
     * with a private or protected property that may hold an object.
     *
     * @var array<class-string, list<string>|false|null>
     */
    private array $classes = [];
    /**
     * The properties typed string (or a union with string) of the readonly classes with a plan,
     * whose length counts in the size estimate.
     *
     * @var array<class-string, list<string>>
     */
    private array $strings = [];
    /**
     * What check() needs of a class, in one lookup: its kind (OBJECTS, with CUSTOM), the part of
     * the size estimate that does not depend on the values (the class name, and the names of the
     * properties counted), the string properties whose length counts, and the properties to walk
     * (false: walk the whole object).
     *
     * @var array<class-string, array{int, int, list<string>, list<string>|false}>
     */
    private array $records = [];
    /** @var list<class-string> */
    private array $list = [];
    /** @var array<class-string, int> OBJECTS or OBJECTS | CUSTOM, by class */
    private array $kinds = [];
    /**
     * What the checks since it was last set to 0 found: OBJECTS, CUSTOM (see check()). A
     * property rather than a reference parameter, which PHP's JIT handles far more slowly.
     */
    public int $found = 0;
    private int $version = 0;

    public function __construct()
    {
        $this->register(
            PoisonPill::class,
            Kill::class,
            Internal\RemoteAskFailed::class,
            Internal\RemoteWatch::class,
            Internal\RemoteUnwatch::class,
            Internal\RemoteTerminated::class,
            Internal\HandOffComplete::class,
            Internal\Relayed::class,
            Traced::class, // a message sent from traced work, with its trace context
            TraceContext::class,
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
            $class = (new \ReflectionClass($class))->getName(); // as declared: names are compared exactly
            if (!\array_key_exists($class, $this->classes)) {
                [$this->classes[$class], $this->strings[$class]] = self::plan($class);
                $plan = $this->classes[$class];
                $fixed = 16 + \strlen($class);
                foreach ($plan === false ? [] : $this->strings[$class] as $property) {
                    $fixed += \strlen($property) + 10;
                }
                foreach ($plan ?: [] as $property) {
                    $fixed += \strlen($property) + 5;
                }
                $this->kinds[$class] = self::writesItself($class) || \count($this->list) >= IgbinaryGuard::MAX_TABLE
                    ? self::OBJECTS | self::CUSTOM
                    : self::OBJECTS;
                $this->records[$class] = [$this->kinds[$class], $fixed, $plan === false ? [] : $this->strings[$class], $plan ?? []];
                $this->list[] = $class;
                ++$this->version;
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
     * Changes whenever a class is registered.
     */
    public function version(): int
    {
        return $this->version;
    }

    /**
     * Throws unless every object in $message, however deep, is of a registered class, and the
     * message nests at most MAX_DEPTH levels. Resources and closures can never cross. Returns the
     * estimated size of the message encoded, in bytes; $found gains OBJECTS when it holds an
     * object, and CUSTOM when one of them writes itself.
     *
     * @throws UnregisteredMessageClassException
     * @throws MessageTooLargeException
     */
    public function check(mixed $message, int $depth = 0): int
    {
        if (\is_string($message)) {
            return \strlen($message) + 5;
        }
        if (\is_array($message)) {
            return $this->checkArray($message, $depth);
        }
        if (\is_object($message)) {
            return $this->checkObject($message, $depth);
        }
        if (\is_resource($message)) {
            throw new UnregisteredMessageClassException('Cannot send a resource to another worker: it only means something in the process that opened it.');
        }

        return 9;
    }

    /**
     * @param array<mixed> $array
     */
    private function checkArray(array $array, int $depth): int
    {
        if ($depth >= self::MAX_DEPTH - 1) {
            if ($depth >= self::MAX_DEPTH) {
                throw self::tooDeep();
            }

            return $this->checkDeep($array, $depth);
        }
        $size = 5;
        foreach ($array as $key => $value) {
            if (\is_array($value)) {
                // The next level inline: lists of small tuples are common, and a call costs more
                // than the walk of a short array.
                $size += 14;
                foreach ($value as $innerKey => $inner) {
                    if (\is_string($inner)) {
                        $size += \strlen($inner) + 14;
                    } elseif (\is_array($inner) || \is_object($inner) || \is_resource($inner)) {
                        $size += $this->check($inner, $depth + 2) + 9;
                    } else {
                        $size += 18;
                    }
                    if (\is_string($innerKey)) {
                        $size += \strlen($innerKey);
                    }
                }
            } elseif (\is_string($value)) {
                $size += \strlen($value) + 14;
            } elseif (\is_object($value) || \is_resource($value)) {
                $size += $this->check($value, $depth + 1) + 9;
            } else {
                $size += 18;
            }
            if (\is_string($key)) {
                $size += \strlen($key);
            }
        }

        return $size;
    }

    /**
     * checkArray() one level above the bound: any array or object inside is one level too deep.
     *
     * @param array<mixed> $array
     */
    private function checkDeep(array $array, int $depth): int
    {
        $size = 5;
        foreach ($array as $key => $value) {
            if (\is_string($value)) {
                $size += \strlen($value) + 14;
            } elseif (\is_array($value) || \is_object($value) || \is_resource($value)) {
                $size += $this->check($value, $depth + 1) + 9;
            } else {
                $size += 18;
            }
            if (\is_string($key)) {
                $size += \strlen($key);
            }
        }

        return $size;
    }

    private function checkObject(object $message, int $depth): int
    {
        $class = $message::class;
        // One lookup: [OBJECTS or OBJECTS|CUSTOM, fixed size, string properties, properties to walk or false].
        $record = $this->records[$class] ?? throw new UnregisteredMessageClassException(\sprintf(
            'Cannot send a %s to another worker: register its class as a message first (Workers::registerMessage(%s::class)), on every worker.',
            $class,
            $class,
        ));
        if ($depth >= self::MAX_DEPTH) {
            throw self::tooDeep();
        }
        $this->found |= $record[0];
        $walk = $record[3];
        if ($walk === false) {
            return $record[1] + $this->check((array) $message, $depth + 1);
        }
        $size = $record[1];
        foreach ($record[2] as $property) {
            $value = $message->{$property} ?? null;
            if (\is_string($value)) {
                $size += \strlen($value);
            }
        }
        foreach ($walk as $property) {
            $value = $message->{$property} ?? null;
            if (\is_array($value)) {
                $size += $this->checkArray($value, $depth + 1);
            } elseif (\is_object($value) || \is_resource($value)) {
                $size += $this->check($value, $depth + 1);
            } else {
                $size += 9;
            }
        }

        return $size;
    }

    private static function tooDeep(): MessageTooLargeException
    {
        return new MessageTooLargeException('A message for another worker nests arrays and objects more than ' . self::MAX_DEPTH . ' levels deep: flatten it.');
    }

    /**
     * @param class-string $class
     *
     * @return array{list<string>|false|null, list<string>}
     */
    private static function plan(string $class): array
    {
        $root = new \ReflectionClass($class);
        // Only a readonly class cannot grow dynamic properties, which no plan would see.
        if (!$root->isReadOnly() || $root->hasMethod('__serialize') || $root->hasMethod('__sleep')) {
            return [false, []];
        }
        $walk = [];
        $strings = [];
        for ($reflection = $root; $reflection !== false; $reflection = $reflection->getParentClass()) {
            foreach ($reflection->getProperties() as $property) {
                if ($property->isStatic()) {
                    continue;
                }
                if (self::holdsScalarsOnly($property->getType())) {
                    if (self::mayHoldString($property->getType())) {
                        if (!$property->isPublic()) {
                            return [false, []]; // its length could not be read: look at the whole object
                        }
                        $strings[$property->getName()] = true;
                    }

                    continue;
                }
                if (!$property->isPublic()) {
                    return [false, []];
                }
                $walk[$property->getName()] = true;
            }
        }

        return [$walk === [] ? null : array_keys($walk), array_keys($strings)];
    }

    /**
     * @param class-string $class
     */
    private static function writesItself(string $class): bool
    {
        $reflection = new \ReflectionClass($class);

        return $reflection->isInternal() || $reflection->isEnum() || \strlen($class) >= 256
            || $reflection->implementsInterface(\Serializable::class) || $reflection->hasMethod('__serialize');
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

    private static function mayHoldString(?\ReflectionType $type): bool
    {
        if ($type instanceof \ReflectionNamedType) {
            return $type->getName() === 'string';
        }
        if ($type instanceof \ReflectionUnionType) {
            foreach ($type->getTypes() as $member) {
                if (self::mayHoldString($member)) {
                    return true;
                }
            }
        }

        return false;
    }
}
