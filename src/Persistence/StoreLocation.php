<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Persistence\Store\Store;
use Nexus\Postgres\PgConfig;
use Nexus\Runtime\Loop;

/**
 * Where `nexus serve` keeps durable actors: an SQLite file (DATA_DIR/nexus.sqlite, the embedded
 * default) or a PostgreSQL database (--store=postgres://...). A plain value: each worker opens
 * its own Persistence from it after the fork.
 */
final readonly class StoreLocation
{
    public const SQLITE_FILE = 'nexus.sqlite';

    private function __construct(
        public ?string $sqlitePath,
        public ?PgConfig $postgres,
    ) {}

    public static function sqlite(string $path): self
    {
        return new self($path, null);
    }

    public static function postgres(PgConfig $config): self
    {
        return new self(null, $config);
    }

    /**
     * From the command line: PostgreSQL when $storeUrl is given, else DATA_DIR/nexus.sqlite with
     * DATA_DIR created (with its parents) if missing.
     *
     * @throws \InvalidArgumentException with what to fix
     */
    public static function fromOptions(string $dataDirectory, ?string $storeUrl): self
    {
        if ($storeUrl !== null) {
            return self::postgres(PostgresUrl::parse($storeUrl));
        }
        if (!is_dir($dataDirectory) && !@mkdir($dataDirectory, 0o755, true) && !is_dir($dataDirectory)) {
            throw new \InvalidArgumentException("The data directory {$dataDirectory} does not exist and cannot be created: " . (error_get_last()['message'] ?? 'unknown error') . '.');
        }

        return self::sqlite(rtrim($dataDirectory, '/') . '/' . self::SQLITE_FILE);
    }

    public function open(ActorSystem $system, TypeRegistry $types = new TypeRegistry(), PersistenceSettings $settings = new PersistenceSettings()): Persistence
    {
        return $this->postgres !== null
            ? Persistence::postgres($system, $this->postgres, $types, $settings)
            : Persistence::sqlite($system, (string) $this->sqlitePath, $types, $settings);
    }

    /**
     * The store alone, without a Persistence (the master of a cluster node checks it is the
     * cluster's before it joins); close() it after use.
     */
    public function openStore(Loop $loop): Store
    {
        return $this->postgres !== null
            ? new PostgresStore($loop, $this->postgres)
            : new SqliteStore($loop, (string) $this->sqlitePath);
    }

    /**
     * For logs: the file, or the URL without its password.
     */
    public function describe(): string
    {
        return $this->postgres !== null ? PostgresUrl::redact($this->postgres) : (string) $this->sqlitePath;
    }
}
