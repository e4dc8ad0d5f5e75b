<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * How long the campaign runs, with how many clients, which seed, and which servers it uses.
 */
final readonly class CampaignSettings
{
    public function __construct(
        public float $duration = 180.0,
        public float $warmUp = 5.0,
        public int $clients = 16,
        public int $counters = 50,
        public int $seed = 1,
        public bool $postgres = true,
        public bool $redis = true,
        public float $requestTimeout = 15.0,
    ) {
        if ($duration <= 0 || $warmUp < 0 || $clients < 1 || $counters < 1 || $requestTimeout <= 0) {
            throw new \InvalidArgumentException('The campaign needs a positive duration, at least one client and one counter.');
        }
    }

    /**
     * The short run CI does: every fault once in about 25 s.
     */
    public static function short(int $seed = 1): self
    {
        return new self(duration: 20.0, warmUp: 2.0, clients: 8, counters: 20, seed: $seed);
    }
}
