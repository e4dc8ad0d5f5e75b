<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Mailbox\EnqueueResult;
use Nexus\Actor\Mailbox\Mailbox;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;

/**
 * Mailbox alone: 1M enqueue + dequeue pairs on an unbounded mailbox, in rounds of 100 enqueues
 * followed by 100 dequeues (the shape of AirsSys's 100-cycle figure). Every enqueue must be
 * accepted and every dequeue must hand back the message queued.
 */
final class MailboxOps implements BenchCase
{
    private const PAIRS = 1_000_000;
    private const ROUND = 100;

    private int $pairs = 0;
    private int $accepted = -1;
    private int $dequeued = -1;
    private int $left = -1;

    public function name(): string
    {
        return 'mailbox.ops';
    }

    public function unit(): string
    {
        return 'pairs/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '1M Mailbox enqueue + dequeue pairs, in rounds of 100 enqueues then 100 dequeues';
    }

    public function run(int $scale): float
    {
        $rounds = Bench::scaled(intdiv(self::PAIRS, self::ROUND), $scale, 10);
        $this->pairs = $rounds * self::ROUND;
        $mailbox = new Mailbox();
        $message = new \stdClass();
        $accepted = $dequeued = 0;

        $start = hrtime(true);
        for ($r = 0; $r < $rounds; ++$r) {
            for ($i = 0; $i < self::ROUND; ++$i) {
                if ($mailbox->enqueue($message) === EnqueueResult::Accepted) {
                    ++$accepted;
                }
            }
            for ($i = 0; $i < self::ROUND; ++$i) {
                if ($mailbox->dequeue() && $mailbox->message === $message) {
                    ++$dequeued;
                }
            }
        }
        $elapsed = hrtime(true) - $start;

        $this->accepted = $accepted;
        $this->dequeued = $dequeued;
        $this->left = $mailbox->count();

        return Bench::perSecond($this->pairs, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'enqueues accepted', $this->pairs, $this->accepted);
        Check::same($this->name(), 'messages dequeued', $this->pairs, $this->dequeued);
        Check::same($this->name(), 'messages left in the mailbox', 0, $this->left);
    }
}
