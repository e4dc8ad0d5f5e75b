<?php

declare(strict_types=1);

namespace Nexus\Demo;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorFailed;
use Nexus\Actor\Event\ActorRestarted;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Props;
use Nexus\Actor\Signal\PostRestart;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Directive;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\Demo\Bank\Deposit;
use Nexus\Demo\Bank\GetBalance;
use Nexus\Demo\Bank\Withdraw;
use Nexus\Log\StderrLogger;
use Psr\Log\LogLevel;

/**
 * The story `nexus demo` tells: a bank actor supervises an account actor. It shows tell, ask (a
 * reply and a timeout), a failure the supervisor resumes (state kept), one it restarts (state
 * reset), the event stream, lifecycle signals and an orderly shutdown, then ends by itself.
 */
final class BankStory
{
    private const ASK_TIMEOUT = 0.3;

    /**
     * Tells the story on $stdout; returns false when something did not go as told.
     *
     * @param resource $stdout
     * @param resource $stderr
     */
    public function tell($stdout, $stderr): bool
    {
        $say = static function (string $who, string $what) use ($stdout): void {
            fwrite($stdout, sprintf("  %-8s %s\n", $who, $what));
        };

        // The two failures are intended and narrated below from the event stream; the runtime's
        // ERROR log lines for them would only repeat that on stderr.
        $system = new ActorSystem('demo', new StderrLogger(LogLevel::CRITICAL, $stderr));

        fwrite($stdout, "Nexus demo: a bank actor supervises its child, an account actor.\n\n");

        $events = $system->spawn($this->eventPrinter($say), 'events');
        $system->eventStream->subscribe($events, ActorFailed::class);
        $system->eventStream->subscribe($events, ActorRestarted::class);
        $say('main', 'spawned /user/events, subscribed to ActorFailed and ActorRestarted');

        $bank = $system->spawn($this->bank($say), 'bank');
        $say('main', 'spawned /user/bank; it starts its child /user/bank/account and forwards messages to it');

        $bank->tell(new Deposit(100));
        $bank->tell(new Deposit(50));
        $say('main', 'tell Deposit(100), tell Deposit(50)');
        $say('main', 'ask GetBalance -> ' . $this->balance($bank));

        $say('main', 'tell Withdraw(500): more than the balance');
        $bank->tell(new Withdraw(500));
        $say('main', 'ask GetBalance -> ' . $this->balance($bank) . ' (Resume kept the balance)');

        $say('main', 'tell Withdraw(-20): not a valid amount');
        $bank->tell(new Withdraw(-20));
        $say('main', 'ask GetBalance -> ' . $this->balance($bank) . ' (Restart reset the balance)');

        $say('main', sprintf("ask 'statement' with a %.1f s timeout: the account does not handle it", self::ASK_TIMEOUT));
        try {
            $reply = $bank->ask('statement', self::ASK_TIMEOUT)->await();
            $say('main', 'unexpected reply: ' . get_debug_type($reply));

            return false;
        } catch (AskTimeoutException $e) {
            $say('main', 'AskTimeoutException: ' . $e->getMessage());
        }

        $say('main', 'shutdown(): children stop before their parents');
        $system->shutdown();
        $system->run();

        fwrite($stdout, "\ndemo finished (the code is in src/Demo/BankStory.php)\n");

        return true;
    }

    /**
     * @param \Closure(string, string): void $say
     */
    private function eventPrinter(\Closure $say): Behavior
    {
        return Behavior::receive(static function (mixed $event) use ($say): void {
            if ($event instanceof ActorFailed) {
                $say('events', sprintf(
                    'ActorFailed: %s on %s: %s: %s',
                    $event->actor->path(),
                    $event->message instanceof \Stringable ? (string) $event->message : get_debug_type($event->message),
                    $event->error::class,
                    $event->error->getMessage(),
                ));
            } elseif ($event instanceof ActorRestarted) {
                $say('events', 'ActorRestarted: ' . $event->actor->path());
            }
        });
    }

    /**
     * The supervisor: resumes the account after a DomainException (a refused withdrawal: the
     * balance is still right), restarts it after anything else (its state may be wrong).
     *
     * @param \Closure(string, string): void $say
     */
    private function bank(\Closure $say): Props
    {
        $decider = static function (\Throwable $failure) use ($say): Directive {
            if ($failure instanceof \DomainException) {
                $say('bank', $failure::class . ' -> Resume: the account keeps its balance, the failed message is dropped');

                return Directive::Resume;
            }
            $say('bank', $failure::class . ' -> Restart: the account is replaced by a fresh one from its Props');

            return Directive::Restart;
        };
        $account = $this->account($say);

        return Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($account): Behavior {
            $child = $ctx->spawn($account, 'account');

            return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($child): void {
                $ctx->forward($child);
            });
        }))->withSupervisor(SupervisorStrategy::oneForOne($decider));
    }

    /**
     * @param \Closure(string, string): void $say
     */
    private function account(\Closure $say): Behavior
    {
        return Behavior::withState(0, static function (int $balance, mixed $message, ActorContext $ctx): int|Behavior {
            if ($message instanceof Deposit) {
                return $balance + $message->amount;
            }
            if ($message instanceof Withdraw) {
                if ($message->amount <= 0) {
                    throw new \InvalidArgumentException("A withdrawal must be a positive amount, got {$message->amount}.");
                }
                if ($message->amount > $balance) {
                    throw new \DomainException("Cannot withdraw {$message->amount}: the balance is {$balance}.");
                }

                return $balance - $message->amount;
            }
            if ($message instanceof GetBalance) {
                $ctx->reply($balance);

                return $balance;
            }

            return Behavior::unhandled();
        })->onSignal(static function (Signal $signal) use ($say): void {
            if ($signal instanceof PostRestart) {
                $say('account', 'PostRestart signal: a new incarnation, balance 0');
            } elseif ($signal instanceof PostStop) {
                $say('account', 'PostStop signal: stopped');
            }
        });
    }

    private function balance(ActorRef $bank): int
    {
        $balance = $bank->ask(new GetBalance(), 1.0)->await();
        if (!\is_int($balance)) {
            throw new \UnexpectedValueException('The account answered GetBalance with ' . get_debug_type($balance) . ' instead of an int.');
        }

        return $balance;
    }
}
