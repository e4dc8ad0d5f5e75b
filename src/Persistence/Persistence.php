<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Persistence\Exception\InvalidPersistenceIdException;
use Nexus\Persistence\Internal\GroupCommit;
use Nexus\Persistence\Query\EventQueries;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Persistence\Store\Postgres\PostgresOptions;
use Nexus\Persistence\Store\Postgres\PostgresStore;
use Nexus\Persistence\Store\Sqlite\SqliteOptions;
use Nexus\Persistence\Store\Sqlite\SqliteStore;
use Nexus\Persistence\Store\Store;
use Nexus\Postgres\PgConfig;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;

/**
 * Durable actors for one actor system (one per process): the store, the registry of the types
 * it keeps, the group commit that batches the writes of every persistent actor of the process,
 * and the factories of persistent behaviors.
 *
 *     $persistence = Persistence::sqlite($system, __DIR__ . '/var/app.sqlite');
 *     $persistence->types->register(Incremented::class, 'counter.incremented');
 *     $system->spawn($persistence->eventSourced('counter|a', 0, $onCommand, $onEvent)->behavior());
 *
 * The store is closed when the actor system terminates (after the pending writes).
 */
final class Persistence
{
    public readonly GroupCommit $groupCommit;
    private ?EventQueries $queries = null;

    public function __construct(
        public readonly ActorSystem $system,
        public readonly Store $store,
        public readonly TypeRegistry $types = new TypeRegistry(),
        public readonly PersistenceSettings $settings = new PersistenceSettings(),
    ) {
        $this->groupCommit = new GroupCommit($system->loop, $store, $settings, $system->logger);
        $system->whenTerminated()->onSettle(function (): void {
            $this->close();
        });
    }

    /**
     * In this process's memory only: for tests and the test kit.
     */
    public static function inMemory(ActorSystem $system, TypeRegistry $types = new TypeRegistry(), PersistenceSettings $settings = new PersistenceSettings()): self
    {
        return new self($system, new InMemoryStore($system->loop), $types, $settings);
    }

    /**
     * In an SQLite file (created with its tables if missing; its directory must exist).
     */
    public static function sqlite(ActorSystem $system, string $path, TypeRegistry $types = new TypeRegistry(), PersistenceSettings $settings = new PersistenceSettings(), SqliteOptions $options = new SqliteOptions()): self
    {
        return new self($system, new SqliteStore($system->loop, $path, $options), $types, $settings);
    }

    /**
     * In PostgreSQL (the tables are created on first use).
     */
    public static function postgres(ActorSystem $system, PgConfig $config, TypeRegistry $types = new TypeRegistry(), PersistenceSettings $settings = new PersistenceSettings(), PostgresOptions $options = new PostgresOptions()): self
    {
        return new self($system, new PostgresStore($system->loop, $config, $options), $types, $settings);
    }

    /**
     * An event-sourced behavior (see EventSourcedBehavior): its state is rebuilt from its events.
     *
     * @param \Closure $commandHandler fn(State $state, mixed $command, ActorContext $ctx): Effect
     * @param \Closure $eventHandler   fn(State $state, object $event): State
     */
    public function eventSourced(string $persistenceId, mixed $emptyState, \Closure $commandHandler, \Closure $eventHandler): EventSourcedBehavior
    {
        self::checkId($persistenceId);

        return new EventSourcedBehavior($this, $persistenceId, $emptyState, $commandHandler, $eventHandler);
    }

    /**
     * A durable-state behavior (see DurableStateBehavior): its state itself is stored.
     *
     * @param \Closure $commandHandler fn(State $state, mixed $command, ActorContext $ctx): Effect
     */
    public function durableState(string $persistenceId, mixed $emptyState, \Closure $commandHandler): DurableStateBehavior
    {
        self::checkId($persistenceId);

        return new DurableStateBehavior($this, $persistenceId, $emptyState, $commandHandler);
    }

    /**
     * The read side: live streams of events by tag or by persistence id.
     */
    public function queries(): EventQueries
    {
        return $this->queries ??= new EventQueries($this);
    }

    /**
     * Lets the pending writes finish, then closes the store.
     *
     * @return Future<null>
     */
    public function close(): Future
    {
        /** @var Deferred<null> $closed */
        $closed = new Deferred($this->system->loop);
        $finish = function () use ($closed): void {
            $this->store->close();
            $closed->tryResolve(null);
        };
        if ($this->groupCommit->isIdle()) {
            $finish();
        } else {
            $this->groupCommit->whenIdle($finish);
        }

        return $closed->future();
    }

    /**
     * @throws InvalidPersistenceIdException
     */
    public static function checkId(string $id, string $what = 'persistence id'): void
    {
        if ($id === '' || \strlen($id) > 255 || !mb_check_encoding($id, 'UTF-8') || str_contains($id, "\0")) {
            throw new InvalidPersistenceIdException("'{$id}' cannot be a {$what}: use 1 to 255 bytes of UTF-8 without NUL, such as 'counter|apples'.");
        }
    }
}
