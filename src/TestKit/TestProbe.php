<?php

declare(strict_types=1);

namespace Nexus\TestKit;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\Terminated;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\Assert;

/**
 * An actor that records what it receives, and expectations on it that run the system until the
 * expected message arrives or the timeout passes. On a virtual clock (TestKit) the timeout is
 * virtual time: a failing expectation costs no real waiting.
 */
final class TestProbe
{
    public readonly ActorRef $ref;
    private readonly Loop $loop;
    /** @var list<array{mixed, ActorRef|null}> message and sender */
    private array $queue = [];
    private ?ActorRef $lastSender = null;

    public function __construct(private readonly ActorSystem $system, ?string $name = null)
    {
        $this->loop = $system->loop;
        $this->ref = $system->spawn(Behavior::receive(function (mixed $message, ActorContext $ctx): void {
            if ($message instanceof ProbeCommand) {
                ($message->command)($ctx);

                return;
            }
            $this->queue[] = [$message, $ctx->sender()];
        }), $name);
    }

    /**
     * Waits for the next message and checks it equals $expected (== for objects, === otherwise).
     */
    public function expectMessage(mixed $expected, float $timeout = 3.0): mixed
    {
        $message = $this->receiveMessage($timeout);
        $equal = \is_object($expected) ? $expected == $message : $expected === $message;
        if (!$equal) {
            self::fail(sprintf(
                'Expected %s but received %s.',
                self::describe($expected),
                self::describe($message),
            ));
        }
        self::pass();

        return $message;
    }

    /**
     * Waits for the next message and checks it is an instance of $class.
     *
     * @template T of object
     *
     * @param class-string<T> $class
     *
     * @return T
     */
    public function expectMessageClass(string $class, float $timeout = 3.0): object
    {
        $message = $this->receiveMessage($timeout);
        if (!$message instanceof $class) {
            self::fail("Expected a {$class} but received " . self::describe($message) . '.');
        }
        self::pass();

        return $message;
    }

    /**
     * Checks that nothing arrives within $duration.
     */
    public function expectNoMessage(float $duration = 0.1): void
    {
        if ($this->waitForMessage($duration)) {
            self::fail('Expected no message but received ' . self::describe($this->queue[0][0]) . '.');
        }
        self::pass();
    }

    /**
     * Waits for the next message, whatever it is.
     */
    public function receiveMessage(float $timeout = 3.0): mixed
    {
        if (!$this->waitForMessage($timeout)) {
            self::fail(sprintf('No message arrived at %s within %.3f s.', $this->ref->path(), $timeout));
        }
        $entry = array_shift($this->queue);
        \assert($entry !== null);
        [$message, $this->lastSender] = $entry;

        return $message;
    }

    /**
     * @return list<mixed>
     */
    public function receiveMessages(int $count, float $timeout = 3.0): array
    {
        $messages = [];
        for ($i = 0; $i < $count; ++$i) {
            $messages[] = $this->receiveMessage($timeout);
        }

        return $messages;
    }

    /**
     * Skips messages until one satisfies $predicate, and returns it.
     *
     * @param \Closure(mixed): bool $predicate
     */
    public function fishForMessage(\Closure $predicate, float $timeout = 3.0): mixed
    {
        $deadline = $this->loop->clock()->now() + $timeout;
        while (true) {
            $message = $this->receiveMessage(max(0.0, $deadline - $this->loop->clock()->now()));
            if ($predicate($message)) {
                return $message;
            }
        }
    }

    /**
     * Makes the probe watch $ref, so that expectTerminated() can see it stop.
     */
    public function watch(ActorRef $ref): void
    {
        $this->ref->tell(new ProbeCommand(static function (ActorContext $ctx) use ($ref): void {
            $ctx->watch($ref);
        }));
    }

    public function expectTerminated(ActorRef $ref, float $timeout = 3.0): Terminated
    {
        $message = $this->expectMessageClass(Terminated::class, $timeout);
        if ($message->ref !== $ref) {
            self::fail("Expected {$ref->path()} to terminate, but it was {$message->ref->path()}.");
        }

        return $message;
    }

    /**
     * The sender of the last message received.
     */
    public function lastSender(): ?ActorRef
    {
        return $this->lastSender;
    }

    /**
     * Answers the sender of the last message received.
     */
    public function reply(mixed $message): void
    {
        if ($this->lastSender === null) {
            throw new \LogicException('The last message had no sender to reply to.');
        }
        $this->lastSender->tell($message, $this->ref);
    }

    /**
     * Messages received and not yet taken by an expectation.
     *
     * @phpstan-impure the probe actor adds to it whenever the loop runs
     */
    public function pending(): int
    {
        return \count($this->queue);
    }

    private function waitForMessage(float $timeout): bool
    {
        $clock = $this->loop->clock();
        $deadline = $clock->now() + $timeout;
        if ($clock->isVirtual()) {
            while (true) {
                $this->loop->runUntilIdle();
                if ($this->pending() > 0) {
                    return true;
                }
                $due = $this->loop->nextTimerDue();
                if ($due === null || $due > $deadline) {
                    $clock->advanceTo($deadline);
                    $this->loop->runUntilIdle();

                    return $this->pending() > 0;
                }
                $clock->advanceTo($due);
            }
        }
        $expired = false;
        $timer = $this->loop->delay($timeout, static function () use (&$expired): void {
            $expired = true;
        });
        while ($this->pending() === 0 && !$expired && $this->loop->tick()) {
        }
        $this->loop->cancel($timer);

        return $this->pending() > 0;
    }

    private static function fail(string $message): never
    {
        if (class_exists(Assert::class)) {
            Assert::fail($message);
        }
        throw new ExpectationFailedException($message);
    }

    /**
     * A met expectation counts as an assertion when running under PHPUnit.
     */
    private static function pass(): void
    {
        if (class_exists(Assert::class)) {
            Assert::assertThat(true, Assert::isTrue());
        }
    }

    private static function describe(mixed $value): string
    {
        return \is_object($value) ? $value::class : var_export($value, true);
    }
}
