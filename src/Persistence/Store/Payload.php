<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * A value as the stores keep it: its logical name and version (never a PHP class name unless
 * the application chose it as the name), the format of its bytes, and the bytes.
 *
 * $text says that $data is known to be UTF-8 without NUL bytes (the TypeRegistry's JSON and
 * base64 are, by construction), so that the stores need not check it again on every write.
 */
final readonly class Payload
{
    public function __construct(
        public string $name,
        public int $version,
        public PayloadFormat $format,
        public string $data,
        public bool $text = false,
    ) {}
}
