<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * The bare run-queue loop of the design notes, with no framework: a tell appends the message to
 * the actor's array mailbox and puts the actor on the run queue if it is idle; the loop then takes
 * actors off the run queue and calls the handler closure for each message in their mailbox. Every
 * other figure is read as a ratio to this one, measured in the same process.
 */
final class BaselineLoop implements BenchCase
{
    private const MESSAGES = 100_000;

    private int $messages = 0;
    private ?Tally $tally = null;
    private int $left = -1;

    public function name(): string
    {
        return 'baseline.loop';
    }

    public function unit(): string
    {
        return 'msgs/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '100K messages through a bare array mailbox + run queue + closure, no framework';
    }

    public function run(int $scale): float
    {
        $this->messages = $messages = Bench::scaled(self::MESSAGES, $scale, 100);
        $this->tally = $tally = new Tally();
        $actor = new BareActor(static function (int $message) use ($tally): void {
            ++$tally->count;
            $tally->sum += $message;
        });
        $runQueue = new BareRunQueue();
        $tell = static function (BareActor $to, int $message) use ($runQueue): void {
            $to->mailbox[] = $message;
            if (!$to->scheduled) {
                $to->scheduled = true;
                $runQueue->actors[] = $to;
            }
        };

        $start = hrtime(true);
        for ($i = 0; $i < $messages; ++$i) {
            $tell($actor, $i);
        }
        while ($runQueue->actors !== []) {
            $batch = $runQueue->actors;
            $runQueue->actors = [];
            foreach ($batch as $runnable) {
                $mailbox = $runnable->mailbox;
                $runnable->mailbox = [];
                $runnable->scheduled = false;
                $handler = $runnable->handler;
                foreach ($mailbox as $message) {
                    $handler($message);
                }
            }
        }
        $elapsed = hrtime(true) - $start;
        $this->left = \count($actor->mailbox);

        return Bench::perSecond($messages, $elapsed);
    }

    public function verify(): void
    {
        Check::ran($this->name(), $this->tally)->expectSequence($this->name(), $this->messages);
        Check::same($this->name(), 'messages left in the mailbox', 0, $this->left);
    }
}
