<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorFailed;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Internal\LocalActorRef;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * The run loop leaves the message in hand in the mailbox and reads it from there (ActorCell,
 * TakenFromMailbox): message() and sender() stay those of the message being handled whatever
 * the handler does to the mailbox meanwhile, and each message of a batch sees its own.
 */
final class CurrentMessageTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private ActorSystem $system;
    /** @var list<string> */
    private array $log = [];

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $this->system = new ActorSystem('current', new MemoryLogger(), $this->loop);
    }

    public function testEveryMessageOfABatchSeesItsOwnSenderAfterStashesAndForwards(): void
    {
        $sink = $this->recorder('sink');
        $actor = $this->system->spawn(Behavior::receive(function (string $message, ActorContext $ctx) use ($sink): void {
            $this->log[] = "{$message} from " . $this->nameOf($ctx->sender()) . ' is ' . $this->text($ctx->message());
            if ($message === 'stash me') {
                $ctx->stash();
            } elseif ($message === 'forward me') {
                $ctx->forward($sink);
            }
        }));
        $a = $this->named('a');
        $b = $this->named('b');
        $actor->tell('stash me', $a);
        $actor->tell('forward me', $b);
        $actor->tell('plain', $a);
        $actor->tell('last', null);

        $this->loop->runUntilIdle();

        self::assertSame([
            'stash me from a is stash me',
            'forward me from b is forward me',
            'plain from a is plain',
            'last from nobody is last',
            'sink got forward me from b',
        ], $this->log);
        self::assertSame(1, $this->stashSize($actor));
    }

    public function testUnstashingDuringAHandlerKeepsItsMessageAndSender(): void
    {
        $unstashed = false;
        $actor = $this->system->spawn(Behavior::receive(function (string $message, ActorContext $ctx) use (&$unstashed): void {
            if ($message === 'later' && !$unstashed) {
                $ctx->stash();

                return;
            }
            if ($message === 'now') {
                $unstashed = true;
                $ctx->unstashAll();
            }
            $this->log[] = "{$message} from " . $this->nameOf($ctx->sender()) . ' is ' . $this->text($ctx->message());
        }));
        $actor->tell('later', $this->named('a'));
        $actor->tell('now', $this->named('b'));
        $actor->tell('after', $this->named('c'));

        $this->loop->runUntilIdle();

        self::assertSame(['now from b is now', 'later from a is later', 'after from c is after'], $this->log);
    }

    public function testDroppingTheOldestDuringAHandlerKeepsItsMessageAndSender(): void
    {
        /** @var list<DeadLetter> $dropped */
        $dropped = [];
        $this->system->eventStream->subscribe($this->system->spawn(Behavior::receive(static function (DeadLetter $letter) use (&$dropped): void {
            $dropped[] = $letter;
        })), DeadLetter::class);
        $props = Props::fromBehavior(Behavior::receive(function (string $message, ActorContext $ctx): void {
            if ($message === 'flood') {
                foreach (['x', 'y', 'z'] as $more) {
                    $ctx->self()->tell($more); // the mailbox holds two: the oldest queued ones go
                }
            }
            $this->log[] = "{$message} from " . $this->nameOf($ctx->sender()) . ' is ' . $this->text($ctx->message());
        }))->withMailbox(2, OverflowPolicy::DropOldest);
        $actor = $this->system->spawn($props);
        $this->loop->runUntilIdle();
        $actor->tell('flood', $this->named('a'));
        $actor->tell('queued', $this->named('b'));

        $this->loop->runUntilIdle();

        self::assertSame('flood from a is flood', $this->log[0]);
        self::assertSame(['y from current-actor is y', 'z from current-actor is z'], \array_slice($this->log, 1));
        self::assertSame(['queued', 'x'], array_map(static fn(DeadLetter $d): mixed => $d->message, $dropped));
    }

    public function testAHandlerThatWaitsAnswersItsOwnSenderAfterOthersReshapedItsMailbox(): void
    {
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $props = Props::fromBehavior(Behavior::receive(function (string $message, ActorContext $ctx) use ($gate): void {
            if ($message === 'wait') {
                $gate->future()->await();
            }
            $this->log[] = "{$message} from " . $this->nameOf($ctx->sender()) . ' is ' . $this->text($ctx->message());
        }))->withMailbox(1, OverflowPolicy::DropOldest);
        $actor = $this->system->spawn($props);
        $this->loop->runUntilIdle();
        $actor->tell('wait', $this->named('a'));
        $this->loop->runUntilIdle(); // it waits in its handler
        $actor->tell('first', $this->named('b'));
        $actor->tell('second', $this->named('c')); // drops 'first' while the handler waits
        $gate->resolve(null);

        $this->loop->runUntilIdle();

        self::assertSame(['wait from a is wait', 'second from c is second'], $this->log);
    }

    public function testAPoisonPillPutAheadDuringAHandlerKeepsItsMessageAndSender(): void
    {
        $actor = null;
        $actor = $this->system->spawn(Behavior::receive(function (string $message, ActorContext $ctx) use (&$actor): void {
            if ($message === 'stop after me') {
                \assert($actor instanceof LocalActorRef);
                $actor->stopAfterCurrent(new PoisonPill());
            }
            $this->log[] = "{$message} from " . $this->nameOf($ctx->sender()) . ' is ' . $this->text($ctx->message());
        }));
        $actor->tell('stop after me', $this->named('a'));
        $actor->tell('never handled', $this->named('b'));

        $this->loop->runUntilIdle();

        self::assertSame(['stop after me from a is stop after me'], $this->log);
        self::assertInstanceOf(LocalActorRef::class, $actor);
        self::assertTrue($actor->isTerminated());
    }

    public function testAFailureReportsTheMessageInHand(): void
    {
        /** @var list<ActorFailed> $failures */
        $failures = [];
        $this->system->eventStream->subscribe($this->system->spawn(Behavior::receive(static function (ActorFailed $failed) use (&$failures): void {
            $failures[] = $failed;
        })), ActorFailed::class);
        $actor = $this->system->spawn(Behavior::receive(static function (string $message): void {
            if (str_starts_with($message, 'boom')) {
                throw new \RuntimeException('failed on purpose');
            }
        }));
        $actor->tell('fine');
        $actor->tell('boom 1');
        $actor->tell('boom 2'); // after the restart

        $this->loop->runUntilIdle();

        self::assertSame(['boom 1', 'boom 2'], array_map(static fn(ActorFailed $f): mixed => $f->message, $failures));
    }

    private function recorder(string $name): ActorRef
    {
        return $this->system->spawn(Behavior::receive(function (mixed $message, ActorContext $ctx): void {
            $this->log[] = 'sink got ' . $this->text($message) . ' from ' . $this->nameOf($ctx->sender());
        }), $name);
    }

    /**
     * An actor that only stands for a sender.
     */
    private function named(string $name): ActorRef
    {
        return $this->system->spawn(Behavior::ignore(), $name);
    }

    private function nameOf(?ActorRef $ref): string
    {
        if ($ref === null) {
            return 'nobody';
        }
        $path = $ref->path();

        return str_starts_with($path, '/user/$') ? 'current-actor' : substr($path, strrpos($path, '/') + 1);
    }

    private function text(mixed $message): string
    {
        return \is_string($message) ? $message : get_debug_type($message);
    }

    private function stashSize(ActorRef $ref): int
    {
        \assert($ref instanceof LocalActorRef);

        return $ref->cell->stashSize();
    }
}
