<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Metrics\Buckets;
use Nexus\Metrics\HistogramSeries;

/**
 * What the persistent actors of this process have written and read back, counted in plain
 * fields by the group commit and the runners (an increment per transaction or recovery, nothing
 * allocated), for the nexus.persistence.* metrics that the admin listener reads when scraped.
 * One per process (process()), whatever the number of Persistence instances; it only grows.
 */
final class PersistenceStats
{
    /** Events in journal writes that committed. */
    public int $events = 0;
    /** Durable states written. */
    public int $states = 0;
    /** Writes (of events or a state) that failed: the store refused them or could not be reached. */
    public int $failedWrites = 0;
    /** Actors that read their state back (recovery completed). */
    public int $recoveries = 0;
    /** Recoveries that failed. */
    public int $failedRecoveries = 0;
    /** The duration of each store transaction (group commit), from sending to its answer, in seconds. */
    public readonly HistogramSeries $writeDurations;

    private static ?self $process = null;

    private function __construct()
    {
        $this->writeDurations = new HistogramSeries(Buckets::SECONDS);
    }

    public static function process(): self
    {
        return self::$process ??= new self();
    }
}
