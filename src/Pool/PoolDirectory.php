<?php

declare(strict_types=1);

namespace Nexus\Pool;

/**
 * The process-wide directory of pool instruments, by kind (postgresql, redis) and name: every
 * PgPool and RedisPool registers here when it is made, so that whoever serves metrics (the
 * admin listener of `nexus serve`) finds every pool the application opened without being
 * handed them. The pools are held weakly (PoolInstruments); the instruments stay for the life
 * of the process so that their counts never go back.
 *
 * Bound: at most MAX_NAMES names per kind; a pool made under a further name counts into the
 * name OTHER (`_other`) of its kind. A name is a label, given by the code: 1 to 64 characters of
 * [A-Za-z0-9_.:-] (never a DSN: no credentials can end up in a label).
 */
final class PoolDirectory
{
    public const MAX_NAMES = 32;
    public const OTHER = '_other';

    /** @var array<string, PoolInstruments> by kind and name */
    private static array $instruments = [];
    /** @var array<string, int> names by kind */
    private static array $names = [];

    /**
     * The instruments of pools of this kind and name, made on first use.
     *
     * @throws \InvalidArgumentException for a name that is not a short label
     */
    public static function instruments(string $kind, string $name): PoolInstruments
    {
        if (preg_match('/^[A-Za-z0-9_.:-]{1,64}$/D', $name) !== 1) {
            throw new \InvalidArgumentException("A pool name is a label of 1 to 64 characters among A-Z a-z 0-9 _ . : - (say 'orders-db'), got '" . substr($name, 0, 80) . "'.");
        }
        $key = $kind . "\0" . $name;
        if (isset(self::$instruments[$key])) {
            return self::$instruments[$key];
        }
        if ((self::$names[$kind] ?? 0) >= self::MAX_NAMES) {
            return self::$instruments[$kind . "\0" . self::OTHER] ??= new PoolInstruments($kind, self::OTHER);
        }
        self::$names[$kind] = (self::$names[$kind] ?? 0) + 1;

        return self::$instruments[$key] = new PoolInstruments($kind, $name);
    }

    /**
     * Every pool name seen in this process (per kind at most MAX_NAMES, and OTHER).
     *
     * @return list<PoolInstruments>
     */
    public static function all(): array
    {
        return array_values(self::$instruments);
    }
}
