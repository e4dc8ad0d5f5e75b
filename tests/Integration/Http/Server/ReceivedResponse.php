<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

final readonly class ReceivedResponse
{
    /**
     * @param array<string, string> $headers lower-case names, repeated fields joined with ", "
     */
    public function __construct(
        public int $status,
        public array $headers,
        public string $body,
    ) {}

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }
}
