<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * What a run of the suite produced: a result per case that passed its checks, the error of each
 * case that did not.
 */
final readonly class Outcome
{
    /**
     * @param list<Result>          $results
     * @param array<string, string> $failures case name => why
     */
    public function __construct(
        public array $results,
        public array $failures,
    ) {}
}
