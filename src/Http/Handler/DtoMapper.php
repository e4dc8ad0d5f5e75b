<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/**
 * Builds a DTO from a decoded JSON object through its constructor. The constructor is reflected
 * once at boot; per request only the JSON types are checked (int is accepted for float).
 */
final readonly class DtoMapper
{
    private const SUPPORTED = ['int', 'float', 'string', 'bool', 'array', 'mixed', 'null'];

    /**
     * @param class-string $class
     * @param list<array{name: string, types: list<string>, optional: bool}> $fields
     */
    private function __construct(
        private string $class,
        private array $fields,
    ) {}

    /**
     * @param class-string $class
     *
     * @throws HandlerDefinitionException when a constructor parameter's type cannot come from JSON
     */
    public static function forClass(string $class, string $where): self
    {
        $reflection = new \ReflectionClass($class);
        if (!$reflection->isInstantiable()) {
            throw new HandlerDefinitionException(\sprintf('%s: #[Body] class %s cannot be instantiated; use a concrete class with a public constructor.', $where, $class));
        }
        $fields = [];
        foreach ($reflection->getConstructor()?->getParameters() ?? [] as $parameter) {
            $type = $parameter->getType();
            $types = [];
            foreach ($type instanceof \ReflectionUnionType ? $type->getTypes() : [$type] as $part) {
                $name = $part instanceof \ReflectionNamedType ? $part->getName() : ($part === null ? 'mixed' : '');
                if (!\in_array($name, self::SUPPORTED, true)) {
                    throw new HandlerDefinitionException(\sprintf('%s: field $%s of #[Body] class %s has type %s; only int, float, string, bool, array and mixed (optionally nullable) can be read from JSON.', $where, $parameter->getName(), $class, (string) $type));
                }
                $types[] = $name;
            }
            if ($type !== null && $type->allowsNull() && !\in_array('null', $types, true) && !\in_array('mixed', $types, true)) {
                $types[] = 'null';
            }
            $fields[] = ['name' => $parameter->getName(), 'types' => $types, 'optional' => $parameter->isDefaultValueAvailable()];
        }

        return new self($class, $fields);
    }

    /**
     * Decodes a JSON body into an array.
     *
     * @return array<mixed>
     *
     * @throws HttpException 400 for invalid JSON, 422 for JSON that is not an object or array
     */
    public static function decode(string $body): array
    {
        try {
            $data = json_decode($body, true, 512, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new HttpException(400, 'The request body is not valid JSON: ' . $e->getMessage() . '.', previous: $e);
        }
        if (!\is_array($data)) {
            throw HttpException::unprocessable(\sprintf('The request body must be a JSON object or array, got %s.', get_debug_type($data)));
        }

        return $data;
    }

    /**
     * @param array<mixed> $data
     *
     * @throws HttpException 422 listing every missing or mistyped field
     */
    public function map(array $data): object
    {
        $short = substr(strrchr('\\' . $this->class, '\\') ?: $this->class, 1);
        if ($data !== [] && array_is_list($data)) {
            throw HttpException::unprocessable(\sprintf('The request body must be a JSON object for %s, got an array.', $short));
        }
        $args = [];
        $errors = [];
        foreach ($this->fields as ['name' => $name, 'types' => $types, 'optional' => $optional]) {
            if (!\array_key_exists($name, $data)) {
                if (!$optional) {
                    $errors[] = \sprintf('"%s" is required', $name);
                }
                continue;
            }
            $value = $data[$name];
            $actual = get_debug_type($value);
            if (\in_array($actual, $types, true) || \in_array('mixed', $types, true)) {
                $args[$name] = $value;
            } elseif (\is_int($value) && \in_array('float', $types, true)) {
                $args[$name] = (float) $value;
            } else {
                $errors[] = \sprintf('"%s" must be %s, got %s', $name, implode('|', $types), $actual);
            }
        }
        if ($errors !== []) {
            throw HttpException::unprocessable(\sprintf('Invalid %s: %s.', $short, implode('; ', $errors)), $errors);
        }
        try {
            return new ($this->class)(...$args);
        } catch (\InvalidArgumentException $e) {
            // A DTO that validates in its constructor reports a client error.
            throw HttpException::unprocessable(\sprintf('Invalid %s: %s', $short, $e->getMessage()), [$e->getMessage()]);
        }
    }
}
