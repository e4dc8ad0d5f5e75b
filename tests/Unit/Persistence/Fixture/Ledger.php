<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

use Nexus\Actor\ActorContext;
use Nexus\Persistence\Effect;
use Nexus\Persistence\EventSourcedBehavior;
use Nexus\Persistence\Persistence;

/**
 * An event-sourced account for the tests: commands are arrays ['add', n], ['add-many', n, times],
 * ['get'], ['reset'], ['stop'], ['boom'], ['unhandled'], ['stash'] and ['unstash'].
 */
final class Ledger
{
    public static function register(Persistence $persistence): void
    {
        if ($persistence->types->nameOf(Added::class) === null) {
            $persistence->types->register(Added::class, 'ledger.added');
            $persistence->types->register(Reset::class, 'ledger.reset');
        }
    }

    public static function behavior(Persistence $persistence, string $id): EventSourcedBehavior
    {
        self::register($persistence);

        return $persistence->eventSourced(
            $id,
            0,
            static function (int $total, mixed $command, ActorContext $ctx): Effect {
                \assert(\is_array($command) && \is_string($command[0]));

                return match ($command[0]) {
                    'add' => Effect::persist(new Added(self::int($command[1]), 'n'))->thenReply(static fn(int $total): int => $total),
                    'add-many' => Effect::persist(...array_fill(0, self::int($command[2]), new Added(self::int($command[1]))))->thenReply(static fn(int $total): int => $total),
                    'add-unregistered' => Effect::persist(new Unregistered()),
                    'get' => Effect::reply($total),
                    'reset' => Effect::persist(new Reset())->thenReply('reset'),
                    'stop' => Effect::persist(new Added(0))->thenReply('bye')->thenStop(),
                    'boom' => throw new \DomainException('boom'),
                    default => Effect::unhandled(),
                };
            },
            static fn(int $total, object $event): int => match (true) {
                $event instanceof Added => $total + $event->amount,
                $event instanceof Reset => 0,
                default => $total,
            },
        );
    }

    private static function int(mixed $value): int
    {
        \assert(\is_int($value));

        return $value;
    }
}
