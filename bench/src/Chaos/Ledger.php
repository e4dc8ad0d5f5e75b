<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * What the clients were told, per operation: acknowledged (200), failed with an answer (any
 * other status: the client knows it failed), or unknown (the connection broke or the answer did
 * not come in time: it may or may not have happened). The checker holds the server to the
 * acknowledged ones.
 */
final class Ledger
{
    /** @var array<string, array{sent: int, acked: int, failed: int, unknown: int}> by kind */
    private array $totals = [];
    /** @var array<int, int> failed answers by status */
    private array $statuses = [];
    /** @var array<string, list<int>> the values acknowledged increments returned, by counter */
    public array $counterValues = [];
    /** @var array<string, int> increments that failed or whose outcome is unknown, by counter */
    public array $counterUnsettled = [];
    /** @var array<string, array<string, true>> acknowledged ids, by kind (Postgres, Redis) */
    public array $ackedIds = [];
    /** @var array<string, list<string>> the first few reasons of unknown outcomes */
    private array $unknownReasons = [];
    /** @var array<int, array{int, int, int}> acknowledged, failed and unknown outcomes by second of the campaign */
    private array $timeline = [];

    /**
     * @param \Closure(): float $clock seconds since the campaign started
     */
    public function __construct(private readonly \Closure $clock)
    {
        foreach (OperationKind::cases() as $kind) {
            $this->totals[$kind->value] = ['sent' => 0, 'acked' => 0, 'failed' => 0, 'unknown' => 0];
            $this->ackedIds[$kind->value] = [];
        }
    }

    public function sent(Operation $operation): void
    {
        ++$this->totals[$operation->kind->value]['sent'];
    }

    public function acknowledged(Operation $operation, string $body): void
    {
        ++$this->totals[$operation->kind->value]['acked'];
        $this->tick(0);
        if ($operation->kind === OperationKind::Counter) {
            $decoded = json_decode($body, true);
            $value = \is_array($decoded) && \is_int($decoded['value'] ?? null) ? $decoded['value'] : -1;
            $this->counterValues[$operation->key][] = $value;
        } else {
            $this->ackedIds[$operation->kind->value][$operation->key] = true;
        }
    }

    public function failed(Operation $operation, int $status): void
    {
        ++$this->totals[$operation->kind->value]['failed'];
        $this->tick(1);
        $this->statuses[$status] = ($this->statuses[$status] ?? 0) + 1;
        $this->unsettled($operation);
    }

    public function unknown(Operation $operation, string $reason): void
    {
        ++$this->totals[$operation->kind->value]['unknown'];
        $this->tick(2);
        if (\count($this->unknownReasons[$operation->kind->value] ?? []) < 5) {
            $this->unknownReasons[$operation->kind->value][] = $reason;
        }
        $this->unsettled($operation);
    }

    /**
     * @return array<string, array{sent: int, acked: int, failed: int, unknown: int}>
     */
    public function totals(): array
    {
        return $this->totals;
    }

    /**
     * @return array<int, int>
     */
    public function failedStatuses(): array
    {
        ksort($this->statuses);

        return $this->statuses;
    }

    /**
     * @return array<string, list<string>>
     */
    public function unknownReasons(): array
    {
        return $this->unknownReasons;
    }

    public function answered(): int
    {
        $sum = 0;
        foreach ($this->totals as $total) {
            $sum += $total['acked'] + $total['failed'];
        }

        return $sum;
    }

    /**
     * @return array<int, array{int, int, int}> acknowledged, failed and unknown outcomes by second
     */
    public function timeline(): array
    {
        return $this->timeline;
    }

    /**
     * @param 0|1|2 $outcome
     */
    private function tick(int $outcome): void
    {
        $second = (int) ($this->clock)();
        $this->timeline[$second] ??= [0, 0, 0];
        ++$this->timeline[$second][$outcome];
    }

    private function unsettled(Operation $operation): void
    {
        if ($operation->kind === OperationKind::Counter) {
            $this->counterUnsettled[$operation->key] = ($this->counterUnsettled[$operation->key] ?? 0) + 1;
        }
    }
}
