<?php

declare(strict_types=1);

namespace Nexus\Actor\Supervision;

use Nexus\Actor\Exception\ActorInitializationException;
use Nexus\Actor\Exception\ActorKilledException;

/**
 * How a parent supervises its children: which directive each failure gets (the decider), which
 * children it applies to (the scope), how many restarts are allowed within a window before the
 * child is stopped and the failure escalated, and an optional backoff between restarts.
 */
final class SupervisorStrategy
{
    /** @var (\Closure(\Throwable): Directive)|null defaultDecider() as a closure, made once */
    private static ?\Closure $defaultDecider = null;

    /**
     * @param \Closure(\Throwable): Directive $decider
     */
    public function __construct(
        public readonly SupervisionScope $scope,
        public readonly \Closure $decider,
        public readonly int $maxRestarts = 10,
        public readonly float $within = 60.0,
        public readonly ?Backoff $backoff = null,
    ) {
        if ($maxRestarts < 0) {
            throw new \InvalidArgumentException("maxRestarts cannot be negative, got {$maxRestarts}; use PHP_INT_MAX for no limit.");
        }
        if ($within <= 0.0) {
            throw new \InvalidArgumentException("The restart window must be above zero seconds, got {$within}.");
        }
    }

    /**
     * One-for-one: restart on any failure, except a failed start or a Kill, which stop; at most 10
     * restarts a minute, then the child is stopped and the failure escalated.
     */
    public static function default(): self
    {
        return new self(SupervisionScope::OneForOne, self::defaultDeciderClosure());
    }

    /**
     * @param (\Closure(\Throwable): Directive)|null $decider default: the default decider
     */
    public static function oneForOne(?\Closure $decider = null, int $maxRestarts = 10, float $within = 60.0): self
    {
        return new self(SupervisionScope::OneForOne, $decider ?? self::defaultDeciderClosure(), $maxRestarts, $within);
    }

    /**
     * @param (\Closure(\Throwable): Directive)|null $decider
     */
    public static function allForOne(?\Closure $decider = null, int $maxRestarts = 10, float $within = 60.0): self
    {
        return new self(SupervisionScope::AllForOne, $decider ?? self::defaultDeciderClosure(), $maxRestarts, $within);
    }

    /**
     * @param (\Closure(\Throwable): Directive)|null $decider
     */
    public static function restForOne(?\Closure $decider = null, int $maxRestarts = 10, float $within = 60.0): self
    {
        return new self(SupervisionScope::RestForOne, $decider ?? self::defaultDeciderClosure(), $maxRestarts, $within);
    }

    /**
     * The same strategy, waiting an exponentially growing, jittered delay before each restart.
     */
    public function withBackoff(float $min, float $max, float $jitter = 0.2): self
    {
        return new self($this->scope, $this->decider, $this->maxRestarts, $this->within, new Backoff($min, $max, $jitter));
    }

    public function decide(\Throwable $failure): Directive
    {
        return ($this->decider)($failure);
    }

    /**
     * defaultDecider() as a closure: a real one, made once (PHP 8.2's tracing JIT stops a trace at
     * every call of a first-class callable such as self::defaultDecider(...)).
     *
     * @return \Closure(\Throwable): Directive
     */
    private static function defaultDeciderClosure(): \Closure
    {
        return self::$defaultDecider ??= static function (\Throwable $failure): Directive {
            // By class name: both are final, and an instanceof of a class not loaded yet (no
            // actor ever failed to start, none was killed) looks the class up on every failure.
            $class = $failure::class;

            return $class === ActorInitializationException::class || $class === ActorKilledException::class
                ? Directive::Stop
                : Directive::Restart;
        };
    }

    public static function defaultDecider(\Throwable $failure): Directive
    {
        return (self::defaultDeciderClosure())($failure);
    }
}
