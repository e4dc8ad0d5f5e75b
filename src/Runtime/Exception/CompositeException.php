<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * Every future given to Future::any() failed; errors() holds each failure under its key.
 */
final class CompositeException extends \RuntimeException
{
    /**
     * @param non-empty-array<array-key, \Throwable> $errors
     */
    public function __construct(private readonly array $errors)
    {
        $first = reset($errors);
        parent::__construct(\sprintf(
            'All %d futures failed; the first: %s: %s',
            \count($errors),
            $first::class,
            $first->getMessage(),
        ), 0, $first);
    }

    /**
     * @return non-empty-array<array-key, \Throwable>
     */
    public function errors(): array
    {
        return $this->errors;
    }
}
