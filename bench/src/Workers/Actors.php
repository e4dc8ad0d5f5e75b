<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;

/**
 * The actors of the worker benchmarks.
 */
final class Actors
{
    /** Messages a pump sends per turn before it yields to the loop (which flushes the batch). */
    public const BURST = 1000;

    /**
     * Counts ints; ['expect', n] (an ask) is answered with 'done' once n more have arrived.
     */
    public static function sink(): Behavior
    {
        $count = 0;
        $expect = -1;
        $notify = null;

        return Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$count, &$expect, &$notify): void {
            if (\is_int($message)) {
                if (++$count === $expect) {
                    \assert($notify instanceof ActorRef);
                    $notify->tell('done');
                }

                return;
            }
            if (\is_array($message) && $message[0] === 'expect' && \is_int($message[1])) {
                $count = 0;
                $expect = $message[1];
                $notify = $ctx->sender();
            } elseif ($message === 'ping') {
                $ctx->reply('pong');
            }
        });
    }

    public static function echo(): Behavior
    {
        return Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply($message);
        });
    }

    /**
     * ['run', list<ActorRef> $targets, int $n]: sends 0..n-1 to every target, a burst per turn.
     */
    public static function pump(): Behavior
    {
        return Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            \assert(\is_array($message));
            [$kind, $targets, $n, $from] = $message + [3 => 0];
            \assert(\is_array($targets) && \is_int($n) && \is_int($from));
            $to = min($n, $from + self::BURST);
            foreach ($targets as $target) {
                \assert($target instanceof ActorRef);
                for ($i = $from; $i < $to; ++$i) {
                    $target->tell($i);
                }
            }
            if ($to < $n) {
                $ctx->self()->tell([$kind, $targets, $n, $to]);
            }
        });
    }

    /**
     * An order shard: subtotal, tier discount, running count and revenue. 'stats' answers [count, revenue].
     */
    public static function shard(): Behavior
    {
        $count = 0;
        $revenue = 0.0;

        return Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$count, &$revenue): void {
            if ($message instanceof WorldOrder) {
                $subtotal = 0.0;
                foreach ($message->items as [$price, $quantity]) {
                    $subtotal += $price * $quantity;
                }
                $discount = match ($message->tier) {
                    'gold' => 0.10,
                    'silver' => 0.05,
                    default => 0.0,
                };
                ++$count;
                $revenue += $subtotal * (1.0 - $discount);
            } elseif ($message === 'stats') {
                $ctx->reply([$count, $revenue]);
            }
        });
    }
}
