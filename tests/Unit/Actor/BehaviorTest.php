<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\Actor;
use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\UnhandledMessage;
use Nexus\Actor\Props;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class BehaviorTest extends TestCase
{
    public function testStatelessBehaviorRepliesToEachMessage(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $echo = $kit->spawn(Behavior::receive(static function (string $message, ActorContext $ctx): void {
            $ctx->reply("echo: {$message}");
        }));

        $echo->tell('a', $probe->ref);
        $echo->tell('b', $probe->ref);

        $probe->expectMessage('echo: a');
        $probe->expectMessage('echo: b');
        self::assertSame($echo, $probe->lastSender());
    }

    public function testStatefulBehaviorKeepsTheStateItReturns(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $counter = $kit->spawn(Behavior::withState(0, static function (int $count, int|string $message, ActorContext $ctx): int {
            if ($message === 'get') {
                $ctx->reply($count);

                return $count;
            }

            return $count + (int) $message;
        }));

        $counter->tell(2);
        $counter->tell(3);
        $counter->tell('get', $probe->ref);

        $probe->expectMessage(5);
    }

    public function testStatefulBehaviorKeepsStateOnSame(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::withState(['n' => 1], static function (array $state, mixed $message, ActorContext $ctx): mixed {
            if ($message === 'get') {
                $ctx->reply($state);
            }

            return Behavior::same();
        }));
        $ref->tell('noise');
        $ref->tell('get', $probe->ref);

        $probe->expectMessage(['n' => 1]);
    }

    public function testSetupRunsOnceAtStartBeforeTheFirstMessage(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $setups = 0;
        $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use (&$setups, $probe): Behavior {
            ++$setups;
            $probe->ref->tell('setup ' . $ctx->path());

            return Behavior::receive(static function (string $message) use ($probe): void {
                $probe->ref->tell("got {$message}");
            });
        }), 'configured');
        $ref->tell('x');
        $ref->tell('y');

        $probe->expectMessage('setup /user/configured');
        $probe->expectMessage('got x');
        $probe->expectMessage('got y');
        self::assertSame(1, $setups);
    }

    public function testClassActorReceivesMessagesAndLifecycleHooks(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Props::fromClass(RecordingActor::class, $probe->ref), 'recorder');
        $ref->tell('hello');
        $kit->runUntilIdle(); // a stop is a system message: it would overtake 'hello'
        $kit->system->stop($ref);

        $probe->expectMessage('preStart');
        $probe->expectMessage('receive hello');
        $probe->expectMessage('postStop');
    }

    public function testPropsFromClassRejectsClassesThatAreNotActors(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('must extend');
        Props::fromClass(\stdClass::class); // @phpstan-ignore argument.type
    }

    public function testReturningABehaviorBecomesIt(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $happy = null;
        $angry = Behavior::receive(static function (string $message, ActorContext $ctx) use (&$happy): ?Behavior {
            $ctx->reply("grr {$message}");

            return $message === 'calm' ? $happy : null;
        });
        $happy = Behavior::receive(static function (string $message, ActorContext $ctx) use ($angry): ?Behavior {
            $ctx->reply("hi {$message}");

            return $message === 'poke' ? $angry : null;
        });
        $ref = $kit->spawn($happy);
        foreach (['a', 'poke', 'b', 'calm', 'c'] as $message) {
            $ref->tell($message, $probe->ref);
        }

        self::assertSame(['hi a', 'hi poke', 'grr b', 'grr calm', 'hi c'], $probe->receiveMessages(5));
    }

    public function testBecomeWithoutDiscardingCanBeUndoneWithUnbecome(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $override = Behavior::receive(static function (string $message, ActorContext $ctx): void {
            $ctx->reply("override {$message}");
            if ($message === 'pop') {
                $ctx->unbecome();
            }
        });
        $ref = $kit->spawn(Behavior::receive(static function (string $message, ActorContext $ctx) use ($override): void {
            $ctx->reply("base {$message}");
            if ($message === 'push') {
                $ctx->become($override, false);
            }
        }));
        foreach (['a', 'push', 'b', 'pop', 'c'] as $message) {
            $ref->tell($message, $probe->ref);
        }

        self::assertSame(['base a', 'base push', 'override b', 'override pop', 'base c'], $probe->receiveMessages(5));
    }

    public function testStatefulBecomeCarriesItsOwnState(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::withState(1, static function (int $n, mixed $message, ActorContext $ctx): mixed {
            if ($message === 'switch') {
                return Behavior::withState(100, static function (int $m, mixed $message, ActorContext $ctx): int {
                    $ctx->reply($m + 1);

                    return $m + 1;
                });
            }

            return $n + 1;
        }));
        $ref->tell('inc');
        $ref->tell('switch');
        $ref->tell('x', $probe->ref);
        $ref->tell('y', $probe->ref);

        $probe->expectMessage(101);
        $probe->expectMessage(102);
    }

    public function testForwardKeepsTheOriginalSenderEvenWhenThereIsNone(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $forwarder = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
            $ctx->forward($probe->ref);
        }));
        $forwarder->tell('anonymous');
        $forwarder->tell('signed', $probe->ref);

        $probe->expectMessage('anonymous');
        self::assertNull($probe->lastSender());
        $probe->expectMessage('signed');
        self::assertSame($probe->ref, $probe->lastSender());

        $rewriter = $kit->spawn(Behavior::receive(static function (string $message, ActorContext $ctx) use ($probe): void {
            $ctx->forward($probe->ref, strtoupper($message));
        }));
        $rewriter->tell('quiet');
        $probe->expectMessage('QUIET');
        self::assertNull($probe->lastSender());
    }

    public function testStoppedBehaviorStopsTheActor(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::receive(static fn(mixed $message): ?Behavior => $message === 'stop' ? Behavior::stopped() : null));
        $probe->watch($ref);
        $ref->tell('stop');

        $probe->expectTerminated($ref);
        self::assertNull($kit->system->lookup($ref->path()));
    }

    public function testUnhandledMessagesArePublished(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, UnhandledMessage::class);
        $ref = $kit->spawn(Behavior::receive(static fn(mixed $message): ?Behavior => $message === 'known' ? null : Behavior::unhandled()));
        $ref->tell('known');
        $ref->tell('strange');

        $event = $probe->expectMessageClass(UnhandledMessage::class);
        self::assertSame('strange', $event->message);
        self::assertSame($ref, $event->recipient);
    }

    public function testSignalHandlerSeesStartAndStop(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(
            Behavior::receive(static fn(): null => null)
                ->onSignal(static function (object $signal) use ($probe): void {
                    $probe->ref->tell((new \ReflectionClass($signal))->getShortName());
                }),
        );
        $kit->runUntilIdle();
        $kit->system->stop($ref);

        $probe->expectMessage('PreStart');
        $probe->expectMessage('PostStop');
    }
}

final class RecordingActor extends Actor
{
    public function __construct(private readonly \Nexus\Actor\ActorRef $probe) {}

    public function receive(mixed $message, ActorContext $ctx): ?Behavior
    {
        $this->probe->tell('receive ' . (\is_string($message) ? $message : get_debug_type($message)));

        return null;
    }

    public function preStart(ActorContext $ctx): void
    {
        $this->probe->tell('preStart');
    }

    public function postStop(ActorContext $ctx): void
    {
        $this->probe->tell('postStop');
    }
}
