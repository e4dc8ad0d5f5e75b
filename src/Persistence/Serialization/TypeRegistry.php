<?php

declare(strict_types=1);

namespace Nexus\Persistence\Serialization;

use Nexus\Persistence\Exception\PayloadDecodingException;
use Nexus\Persistence\Exception\PayloadEncodingException;
use Nexus\Persistence\Exception\UnregisteredTypeException;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;

/**
 * The classes that may be stored, each under a stable logical name (never its PHP class name,
 * unless chosen as the name), a version, and the names it was stored under before (aliases).
 * Upcasters turn the JSON payload of version N into version N + 1, so that old events become
 * current ones when they are read.
 *
 *     $types->register(ItemAdded::class, 'cart.item-added', version: 2, aliases: ['cart.added']);
 *     $types->upcast('cart.item-added', 1, fn(array $v1): array => $v1 + ['quantity' => 1]);
 *
 * JSON (the default format) stores the public properties and builds the object again by passing
 * them to the constructor as named arguments; give toArray/fromArray when the class needs more.
 * The PHP format stores serialize() output and unserializes it with only the registered (and
 * allow()ed) classes permitted: nothing is ever unserialized into an unregistered class.
 * Scalars and arrays (a counter's int state, say) are stored as JSON under 'nexus.value'.
 *
 * Bounds: a payload above $maxPayloadBytes is refused when written; JSON is decoded at most
 * 64 levels deep.
 */
final class TypeRegistry
{
    /** The logical name of plain values (scalars, null, arrays of them). */
    public const VALUE = 'nexus.value';
    private const JSON_FLAGS = \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION;
    private const DEPTH = 64;

    /** @var array<class-string, Registration> */
    private array $byClass = [];
    /** @var array<string, Registration> by name and alias */
    private array $byName = [];
    /** @var array<string, array<int, \Closure>> by name, then the version they upcast from */
    private array $upcasters = [];
    /** @var array<class-string, true> classes PHP-format payloads may contain besides the registered ones */
    private array $allowed = [];
    /** @var list<class-string>|null */
    private ?array $allowedList = null;

    public function __construct(public readonly int $maxPayloadBytes = 1 << 20)
    {
        if ($maxPayloadBytes < 64) {
            throw new \InvalidArgumentException("The payload limit must be at least 64 bytes, got {$maxPayloadBytes}.");
        }
    }

    /**
     * @param class-string                       $class
     * @param list<string>                       $aliases  names this class was stored under before
     * @param \Closure|null $toArray   JSON only: fn(object): array, what to store (default: the public properties)
     * @param \Closure|null $fromArray JSON only: fn(array): object, how to build it (default: the constructor, named arguments)
     */
    public function register(
        string $class,
        string $name,
        int $version = 1,
        array $aliases = [],
        PayloadFormat $format = PayloadFormat::Json,
        ?\Closure $toArray = null,
        ?\Closure $fromArray = null,
    ): self {
        if (!class_exists($class)) {
            throw new UnregisteredTypeException("Cannot register {$class}: no such class (is it autoloadable?).");
        }
        if ($version < 1) {
            throw new UnregisteredTypeException("The version of {$name} must be 1 or more, got {$version}.");
        }
        foreach ([$name, ...$aliases] as $logical) {
            if ($logical === '' || \strlen($logical) > 255 || str_contains($logical, "\0") || $logical === self::VALUE) {
                throw new UnregisteredTypeException("'{$logical}' cannot be a logical type name: use 1 to 255 bytes without NUL, other than " . self::VALUE . '.');
            }
            $taken = $this->byName[$logical] ?? null;
            if ($taken !== null && $taken->class !== $class) {
                throw new UnregisteredTypeException("The logical name '{$logical}' is already registered for {$taken->class}; one name means one type.");
            }
        }
        if (isset($this->byClass[$class]) && $this->byClass[$class]->name !== $name) {
            throw new UnregisteredTypeException("{$class} is already registered as '{$this->byClass[$class]->name}'; register it once, and keep old names as aliases.");
        }
        if ($format === PayloadFormat::Php && ($toArray !== null || $fromArray !== null)) {
            throw new UnregisteredTypeException("toArray/fromArray apply to the JSON format only ({$class}).");
        }
        $registration = new Registration($class, $name, $version, $format, $toArray, $fromArray);
        $this->byClass[$class] = $registration;
        foreach ([$name, ...$aliases] as $logical) {
            $this->byName[$logical] = $registration;
        }
        $this->allowedList = null;

        return $this;
    }

    /**
     * Turns the JSON payload of version $fromVersion of $name into version $fromVersion + 1.
     *
     * @param \Closure $upcaster fn(array $payload): array, from version $fromVersion to the next
     */
    public function upcast(string $name, int $fromVersion, \Closure $upcaster): self
    {
        $registration = $this->byName[$name] ?? throw new UnregisteredTypeException("Register '{$name}' before adding an upcaster for it.");
        if ($fromVersion < 1 || $fromVersion >= $registration->version) {
            throw new UnregisteredTypeException("An upcaster of '{$name}' must start from a version below the current {$registration->version}, got {$fromVersion}.");
        }
        $this->upcasters[$registration->name][$fromVersion] = $upcaster;

        return $this;
    }

    /**
     * Classes that PHP-format payloads may contain (value objects inside events) without being
     * stored on their own.
     *
     * @param class-string ...$classes
     */
    public function allow(string ...$classes): self
    {
        foreach ($classes as $class) {
            $this->allowed[$class] = true;
        }
        $this->allowedList = null;

        return $this;
    }

    /**
     * The logical name $class is stored under, or null when it is not registered.
     */
    public function nameOf(string $class): ?string
    {
        return ($this->byClass[$class] ?? null)?->name;
    }

    /**
     * Encodes an event: an object of a registered class.
     *
     * @throws PayloadEncodingException
     */
    public function encodeEvent(mixed $event): Payload
    {
        if (!\is_object($event)) {
            throw new PayloadEncodingException('An event must be an object of a registered class, got ' . get_debug_type($event) . '; register a class with TypeRegistry::register().');
        }
        $registration = $this->byClass[$event::class] ?? null;
        if ($registration === null || $registration->format !== PayloadFormat::Json) {
            return $this->encode($event);
        }
        // The common event, inline (one call per persisted event instead of five): the same
        // checks as encode(), in the same order, with the same exceptions.
        $fields = $registration->toArray !== null ? ($registration->toArray)($event) : get_object_vars($event);
        if (\is_array($fields)) {
            foreach ($fields as $item) {
                if (!\is_scalar($item) && $item !== null) {
                    self::checkPlain($fields, $event::class);
                    break;
                }
            }
        } else {
            self::checkPlain($fields, $event::class);
        }
        try {
            $data = json_encode($fields, self::JSON_FLAGS);
        } catch (\JsonException $e) {
            throw new PayloadEncodingException($event::class . " cannot be written as JSON: {$e->getMessage()}.", 0, $e);
        }
        if (\strlen($data) > $this->maxPayloadBytes) {
            return $this->bounded(new Payload($registration->name, $registration->version, PayloadFormat::Json, $data, true));
        }

        return new Payload($registration->name, $registration->version, PayloadFormat::Json, $data, true);
    }

    /**
     * Encodes a state or any other value: a registered object, or a scalar, null or array of
     * them (stored as JSON under 'nexus.value').
     *
     * @throws PayloadEncodingException
     */
    public function encode(mixed $value): Payload
    {
        if (!\is_object($value)) {
            self::checkPlain($value, 'the value');

            return $this->bounded(new Payload(self::VALUE, 1, PayloadFormat::Json, self::json($value, 'the value'), true));
        }
        $registration = $this->byClass[$value::class] ?? throw new PayloadEncodingException(sprintf(
            '%s is not registered: register it with TypeRegistry::register(%s::class, \'a.logical.name\') so that it is stored under a stable name.',
            $value::class,
            $value::class,
        ));
        if ($registration->format === PayloadFormat::Php) {
            return $this->bounded(new Payload($registration->name, $registration->version, PayloadFormat::Php, base64_encode(serialize($value)), true));
        }
        if ($registration->toArray !== null) {
            $fields = ($registration->toArray)($value);
        } else {
            $fields = get_object_vars($value);
        }
        self::checkPlain($fields, $value::class);

        return $this->bounded(new Payload($registration->name, $registration->version, PayloadFormat::Json, self::json($fields, $value::class), true));
    }

    /**
     * Decodes an event: always an object.
     *
     * @throws PayloadDecodingException
     */
    public function decodeEvent(string $name, int $version, PayloadFormat $format, string $data): object
    {
        $event = $this->decode($name, $version, $format, $data);
        if (!\is_object($event)) {
            throw new PayloadDecodingException("The event stored as '{$name}' is a " . get_debug_type($event) . ', not an object.');
        }

        return $event;
    }

    /**
     * @throws PayloadDecodingException
     */
    public function decode(string $name, int $version, PayloadFormat $format, string $data): mixed
    {
        if ($name === self::VALUE) {
            return self::parse($data, $name);
        }
        $registration = $this->byName[$name] ?? throw new PayloadDecodingException("No type is registered under the name '{$name}': register its class under that name or an alias.");
        if ($version > $registration->version) {
            throw new PayloadDecodingException("'{$name}' version {$version} was written by a newer version of the application (this one knows version {$registration->version}).");
        }
        if ($format === PayloadFormat::Php) {
            if ($version !== $registration->version) {
                throw new PayloadDecodingException("'{$name}' version {$version} is stored in the PHP format, which cannot be upcast to version {$registration->version}; store it as JSON to evolve it.");
            }

            return $this->unserialize($data, $registration);
        }
        $fields = self::parse($data, $name);
        if (!\is_array($fields)) {
            throw new PayloadDecodingException("The payload of '{$name}' is not a JSON object.");
        }
        for ($v = $version; $v < $registration->version; ++$v) {
            $upcaster = $this->upcasters[$registration->name][$v] ?? throw new PayloadDecodingException("'{$name}' version {$v} has no upcaster to version " . ($v + 1) . ': add one with TypeRegistry::upcast().');
            try {
                $fields = $upcaster($fields);
            } catch (\Throwable $e) {
                throw new PayloadDecodingException("The upcaster of '{$name}' from version {$v} failed: {$e->getMessage()}", 0, $e);
            }
        }
        try {
            if ($registration->fromArray !== null) {
                $object = ($registration->fromArray)($fields);
            } else {
                $class = $registration->class;
                $object = new $class(...$fields);
            }
        } catch (\Throwable $e) {
            throw new PayloadDecodingException("'{$name}' version {$version} could not be turned into a {$registration->class}: {$e->getMessage()}", 0, $e);
        }
        if (!$object instanceof $registration->class) {
            throw new PayloadDecodingException("The fromArray of '{$name}' returned " . get_debug_type($object) . ", not a {$registration->class}.");
        }

        return $object;
    }

    private function unserialize(string $data, Registration $registration): object
    {
        $bytes = base64_decode($data, true);
        if ($bytes === false) {
            throw new PayloadDecodingException("The PHP-format payload of '{$registration->name}' is not base64.");
        }
        $this->allowedList ??= [...array_keys($this->byClass), ...array_keys($this->allowed)];
        try {
            $value = @unserialize($bytes, ['allowed_classes' => $this->allowedList, 'max_depth' => self::DEPTH]);
        } catch (\Throwable $e) {
            // A typed property refused the __PHP_Incomplete_Class an unlisted class became.
            throw new PayloadDecodingException("The PHP-format payload of '{$registration->name}' holds an object of a class that is not registered or allowed ({$e->getMessage()}); register it or call TypeRegistry::allow().", 0, $e);
        }
        if (!$value instanceof $registration->class) {
            throw new PayloadDecodingException("The PHP-format payload of '{$registration->name}' does not hold a {$registration->class}" . ($value === false ? ' (it does not unserialize)' : '') . '.');
        }
        self::checkComplete($value, $registration->name, 0);

        return $value;
    }

    /**
     * Throws when a class that is neither registered nor allowed was found inside (PHP turned it
     * into __PHP_Incomplete_Class instead of building it).
     */
    private static function checkComplete(mixed $value, string $name, int $depth): void
    {
        if ($depth > self::DEPTH) {
            return;
        }
        if ($value instanceof \__PHP_Incomplete_Class) {
            throw new PayloadDecodingException("The PHP-format payload of '{$name}' holds an object of a class that is not registered or allowed; register it or call TypeRegistry::allow().");
        }
        if (\is_object($value)) {
            $value = (array) $value;
        }
        if (\is_array($value)) {
            foreach ($value as $item) {
                if (\is_array($item) || \is_object($item)) {
                    self::checkComplete($item, $name, $depth + 1);
                }
            }
        }
    }

    private function bounded(Payload $payload): Payload
    {
        if (\strlen($payload->data) > $this->maxPayloadBytes) {
            throw new PayloadEncodingException(sprintf('%s encodes to %d bytes, above the limit of %d; keep events small (store large data elsewhere and its reference here) or raise the limit.', $payload->name, \strlen($payload->data), $this->maxPayloadBytes));
        }

        return $payload;
    }

    private static function checkPlain(mixed $value, string $what, int $depth = 0): void
    {
        if (\is_array($value)) {
            if ($depth >= self::DEPTH) {
                throw new PayloadEncodingException("{$what} nests deeper than " . self::DEPTH . ' levels.');
            }
            foreach ($value as $item) {
                if (!\is_scalar($item) && $item !== null) {
                    self::checkPlain($item, $what, $depth + 1);
                }
            }

            return;
        }
        if (\is_object($value) || \is_resource($value)) {
            throw new PayloadEncodingException(sprintf(
                '%s holds %s, which JSON cannot bring back: give its registration toArray/fromArray, or use PayloadFormat::Php with the classes inside allowed.',
                $what,
                get_debug_type($value),
            ));
        }
    }

    private static function json(mixed $value, string $what): string
    {
        try {
            return json_encode($value, self::JSON_FLAGS);
        } catch (\JsonException $e) {
            throw new PayloadEncodingException("{$what} cannot be written as JSON: {$e->getMessage()}.", 0, $e);
        }
    }

    private static function parse(string $data, string $name): mixed
    {
        try {
            return json_decode($data, true, self::DEPTH, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new PayloadDecodingException("The payload of '{$name}' is not valid JSON: {$e->getMessage()}.", 0, $e);
        }
    }
}
