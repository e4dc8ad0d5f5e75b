<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\TestKit\TestKit;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracing;
use PHPUnit\Framework\TestCase;

/**
 * The trace context travels with what a traced task sends, is what the receiving handler runs
 * under, survives the handler's waits, and never leaks to other work. No tracer is installed
 * here: the context passes through unchanged.
 */
final class TraceContextPropagationTest extends TestCase
{
    private const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

    protected function setUp(): void
    {
        Tracing::$tracer = null;
    }

    public function testAnUntracedSendCarriesNoContext(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $scheduler = $kit->system->scheduler;
        $actor = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe, $scheduler): void {
            $probe->ref->tell([$message, $ctx->message(), $scheduler->trace]);
        }));

        $actor->tell('plain');

        $probe->expectMessage(['plain', 'plain', null]);
    }

    public function testTheHandlerRunsUnderTheSendersContextAndPassesItOn(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $scheduler = $kit->system->scheduler;
        $second = $kit->spawn(Behavior::receive(static function (mixed $message) use ($probe, $scheduler): void {
            $probe->ref->tell(['second', $message, $scheduler->trace?->spanId]);
        }));
        $first = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe, $scheduler, $second): void {
            $probe->ref->tell(['first', $ctx->message(), $scheduler->trace?->spanId]);
            \assert(\is_string($message));
            $second->tell("after {$message}");
        }));

        $scheduler->trace = new TraceContext(self::TRACE, '1111111111111111');
        try {
            $first->tell('hello');
        } finally {
            $scheduler->trace = null;
        }

        $probe->expectMessage(['first', 'hello', '1111111111111111']);
        $probe->expectMessage(['second', 'after hello', '1111111111111111']);
        self::assertNull($scheduler->trace);
    }

    public function testTheContextSurvivesAWaitAndDoesNotLeakToWhatRunsMeanwhile(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $scheduler = $kit->system->scheduler;
        $slowReplier = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'question') {
                $replyTo = $ctx->sender();
                \assert($replyTo !== null);
                $ctx->timers()->startSingleTimer('later', $replyTo, 1.0);
            } elseif ($message instanceof \Nexus\Actor\ActorRef) {
                $message->tell('answer');
            }
        }));
        $asker = $kit->spawn(Behavior::receive(static function (mixed $message) use ($probe, $scheduler, $slowReplier): void {
            $probe->ref->tell(['before', $scheduler->trace?->spanId]);
            $answer = $slowReplier->ask('question', 5.0)->await();
            $probe->ref->tell(['after', $answer, $scheduler->trace?->spanId]);
        }));
        $bystander = $kit->spawn(Behavior::receive(static function (mixed $message) use ($probe, $scheduler): void {
            $probe->ref->tell(['bystander', $message, $scheduler->trace]);
        }));

        $scheduler->trace = new TraceContext(self::TRACE, '2222222222222222');
        $asker->tell('go');
        $scheduler->trace = null;
        $probe->expectMessage(['before', '2222222222222222']);

        $bystander->tell('meanwhile');
        $probe->expectMessage(['bystander', 'meanwhile', null]);

        $kit->advance(1.0);
        $probe->expectMessage(['after', 'answer', '2222222222222222']);
        self::assertNull($scheduler->trace);
    }

    public function testADeadLetterShowsTheMessageNotItsEnvelope(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $actor = $kit->spawn(Behavior::receive(static fn(): Behavior => Behavior::stopped()));
        $actor->tell('stop now');
        $kit->runUntilIdle();

        $kit->system->scheduler->trace = new TraceContext(self::TRACE, '3333333333333333');
        try {
            $actor->tell('too late');
        } finally {
            $kit->system->scheduler->trace = null;
        }

        $letter = $probe->expectMessageClass(DeadLetter::class);
        self::assertSame('too late', $letter->message);
    }
}
