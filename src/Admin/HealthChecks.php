<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The named checks behind /readyz: workers up, database pools reachable, cluster membership.
 *
 * A check is a closure returning a CheckResult. It runs in a fiber of its own, so it may await
 * (a ping to the database); all checks run at once and each gets $timeout seconds (default 2),
 * after which it counts as failed ("no answer within 2 s"). A check that throws counts as failed
 * with the exception's message. At most MAX_CHECKS checks.
 */
final class HealthChecks
{
    public const MAX_CHECKS = 64;

    /** @var array<string, \Closure(): CheckResult> */
    private array $checks = [];

    public function __construct(
        private readonly Loop $loop,
        private readonly float $timeout = 2.0,
    ) {
        if (!($timeout > 0.0)) {
            throw new \InvalidArgumentException("A health check timeout must be above zero seconds, got {$timeout}.");
        }
    }

    /**
     * @param \Closure(): CheckResult $check
     */
    public function add(string $name, \Closure $check): self
    {
        if (preg_match('/^[a-z0-9][a-z0-9_.-]{0,63}$/', $name) !== 1) {
            throw new \InvalidArgumentException("A check name is 1 to 64 lowercase letters, digits, '_', '.' or '-' (e.g. postgres-main), got '{$name}'.");
        }
        if (!isset($this->checks[$name]) && \count($this->checks) >= self::MAX_CHECKS) {
            throw new \LengthException(\sprintf('At most %d readiness checks; %s would be one more.', self::MAX_CHECKS, $name));
        }
        $this->checks[$name] = $check;

        return $this;
    }

    /**
     * @return list<string>
     */
    public function names(): array
    {
        return array_map('strval', array_keys($this->checks));
    }

    /**
     * Runs every check (at once, each bounded by the timeout) and returns their results by name.
     * Call it from a fiber (a request handler) when a check may wait.
     *
     * @return array<string, CheckResult>
     */
    public function run(): array
    {
        /** @var array<string, Future<CheckResult>> $running */
        $running = [];
        foreach ($this->checks as $name => $check) {
            $running[$name] = $this->loop->async(static function () use ($check): CheckResult {
                return $check();
            });
        }
        $deadline = $this->loop->now() + $this->timeout;
        $results = [];
        foreach ($running as $name => $future) {
            try {
                $results[$name] = $future->await(max(0.001, $deadline - $this->loop->now()));
            } catch (\Nexus\Runtime\Exception\TimeoutException) {
                $future->ignore();
                $results[$name] = CheckResult::fail(\sprintf('no answer within %s s', $this->timeout));
            } catch (\Throwable $e) {
                $results[$name] = CheckResult::fail($e::class . ': ' . $e->getMessage());
            }
        }

        return $results;
    }
}
