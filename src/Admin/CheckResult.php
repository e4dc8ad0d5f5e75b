<?php

declare(strict_types=1);

namespace Nexus\Admin;

/**
 * The outcome of one readiness check: ok or not, and a detail for whoever may see it (clients of
 * a loopback listener; others only see ok or failed).
 */
final readonly class CheckResult
{
    private function __construct(
        public bool $ok,
        public string $detail,
    ) {}

    public static function ok(string $detail = ''): self
    {
        return new self(true, $detail);
    }

    public static function fail(string $detail): self
    {
        return new self(false, $detail);
    }
}
