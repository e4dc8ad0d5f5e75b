<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

use Nexus\Bench\Db\PostgresLauncher;
use Nexus\Bench\Db\RunningPostgres;
use Nexus\Bench\Files;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The fault campaign of `make chaos`: two workers serve bench/chaos/app.php while load clients
 * send operations and a FaultInjector kills workers, reloads the pool, opens slowloris and
 * non-reading clients, floods a slow actor and restarts PostgreSQL and Redis. Then the load
 * stops, the server settles, and the Verifier holds it to every acknowledged operation.
 *
 * Every fault kind available is injected at least once; the order and the victims come from the
 * seed. PostgreSQL and Redis take part when they are installed (else their operations and faults
 * are left out, and the report says so).
 */
final class Campaign
{
    /** @var \Closure(string): void */
    private readonly \Closure $progress;

    /**
     * @param (\Closure(string): void)|null $progress receives a line at each fault and every 5 s
     */
    public function __construct(private readonly string $root, private readonly CampaignSettings $settings, ?\Closure $progress = null)
    {
        $this->progress = $progress ?? static function (string $line): void {
            fwrite(\STDERR, $line . "\n");
        };
    }

    /**
     * @return array<string, mixed> the result (see ChaosReport)
     */
    public function run(): array
    {
        $directory = sys_get_temp_dir() . '/nexus-chaos-' . getmypid() . '-' . bin2hex(random_bytes(3));
        if (!@mkdir($directory, 0o755, true)) {
            throw new ChaosException("Cannot create {$directory}.");
        }
        $postgres = $redis = $server = null;
        $skipped = [];
        try {
            $postgres = $this->startPostgres($directory, $skipped);
            $redis = $this->startRedis($directory, $skipped);
            putenv('NEXUS_CHAOS_PG=' . ($postgres?->dsn() ?? ''));
            putenv('NEXUS_CHAOS_REDIS=' . ($redis?->uri() ?? ''));
            $server = new ServerUnderTest($this->root, $directory, 2, $this->storeOptions($directory));
            ($this->progress)("nexus serve on port {$server->port} (2 workers; log {$server->logFile()})");
            $server->waitUntilSettled(60.0);

            return $this->campaign($server, $postgres, $redis, $skipped);
        } finally {
            $server?->stop();
            $redis?->stop();
            $postgres?->stop();
            Files::removeTree($directory);
        }
    }

    /**
     * @param list<string> $skipped
     *
     * @return array<string, mixed>
     */
    private function campaign(ServerUnderTest $server, ?RunningPostgres $postgres, ?RunningRedis $redis, array $skipped): array
    {
        $settings = $this->settings;
        $loop = new Loop();
        $start = $loop->now();
        $clock = static fn(): float => $loop->now() - $start;
        $ledger = new Ledger($clock);
        $stores = [];
        if ($postgres !== null) {
            $stores[] = OperationKind::Postgres;
        }
        if ($redis !== null) {
            $stores[] = OperationKind::Redis;
        }
        $operations = new OperationSource($settings->counters, $stores, $settings->seed);
        $random = new \Random\Randomizer(new \Random\Engine\Mt19937($settings->seed + 1));
        $faults = new FaultInjector($loop, $server->pid(), $server->address(), $postgres, $redis, $random, $this->progress);

        $clients = [];
        $running = [];
        for ($i = 0; $i < $settings->clients; ++$i) {
            $clients[] = $client = new LoadClient($loop, $server->address(), $operations, $ledger, $settings->requestTimeout);
            $running[] = $client->start();
        }
        $before = null;
        $loop->delay($settings->warmUp, static function () use ($server, &$before): void {
            $before = $server->resources();
        });

        // Every available fault at least once, in a seeded order, spread over the duration.
        $schedule = $faults->available();
        $rounds = max(1, (int) floor($settings->duration / 5.0 / \count($schedule)));
        $plan = [];
        for ($round = 0; $round < $rounds; ++$round) {
            foreach ($random->shuffleArray($schedule) as $kind) {
                $plan[] = $kind;
            }
        }
        $interval = $settings->duration / (\count($plan) + 1);
        foreach ($plan as $index => $kind) {
            $loop->delay($settings->warmUp + ($index + 1) * $interval, static function () use ($faults, $kind): void {
                $faults->inject($kind);
            });
        }
        $report = $loop->repeat(5.0, function () use ($ledger, $clock): void {
            $totals = $ledger->totals();
            ($this->progress)(\sprintf(
                '%6.1f s: %d answered (%d acknowledged, %d failed), %d unknown',
                $clock(),
                $ledger->answered(),
                array_sum(array_column($totals, 'acked')),
                array_sum(array_column($totals, 'failed')),
                array_sum(array_column($totals, 'unknown')),
            ));
        });

        $end = new \Nexus\Runtime\Deferred($loop);
        $loop->delay($settings->warmUp + $settings->duration, static function () use ($end): void {
            $end->resolve(null);
        });
        $end->future()->await();
        $loop->cancel($report);
        foreach ($clients as $client) {
            $client->stop();
        }
        Future::all($running)->await($settings->requestTimeout + 5.0);
        $deadline = $loop->now() + 60.0;
        // The server's header timeout (10 s by default) closes slowloris connections: wait for it.
        while (($faults->busy() || $faults->slowlorisPending(15.0)) && $loop->now() < $deadline) {
            $pause = new \Nexus\Runtime\Deferred($loop);
            $loop->delay(0.1, static fn() => $pause->resolve(null));
            $pause->future()->await();
        }
        $faults->cleanup();
        ($this->progress)('load stopped; waiting for the server to settle');
        $server->waitUntilSettled(60.0);
        $after = $server->resources();
        ($this->progress)('checking every acknowledged operation');
        $verdict = Verifier::verify($server, $ledger, $operations->counterNames(), $postgres, $redis);

        return [
            'settings' => [
                'duration' => $settings->duration,
                'clients' => $settings->clients,
                'counters' => $settings->counters,
                'seed' => $settings->seed,
                'workers' => $server->workers,
            ],
            'skipped' => $skipped,
            'operations' => $ledger->totals(),
            'failed_statuses' => $ledger->failedStatuses(),
            'unknown_reasons' => $ledger->unknownReasons(),
            'faults' => $faults->counts(),
            'events' => $faults->events(),
            'verdict' => $verdict,
            'lost' => array_sum(array_column($verdict, 'lost')),
            'resources' => ['before' => $before ?? $after, 'after' => $after],
            'server_problems' => $server->loggedProblems(),
            'timeline' => $ledger->timeline(),
        ];
    }

    /**
     * @param list<string> $skipped
     */
    private function startPostgres(string $directory, array &$skipped): ?RunningPostgres
    {
        if (!$this->settings->postgres || PostgresLauncher::findBinDir() === null) {
            $skipped[] = 'PostgreSQL (not installed or switched off): no /pg operations, no PostgreSQL restarts';

            return null;
        }
        $postgres = (new PostgresLauncher("{$directory}/postgres"))->start(50);
        $postgres->pdo()->exec('CREATE TABLE chaos_ops (id text PRIMARY KEY)');

        return $postgres;
    }

    /**
     * @param list<string> $skipped
     */
    private function startRedis(string $directory, array &$skipped): ?RunningRedis
    {
        try {
            return $this->settings->redis ? RunningRedis::start("{$directory}/redis") : null;
        } catch (ChaosException $e) {
            $skipped[] = 'Redis (' . $e->getMessage() . '): no /redis operations, no Redis restarts';

            return null;
        }
    }

    /**
     * Where the demo counters keep their state, when this version of `nexus serve` can keep it.
     *
     * @return list<string>
     */
    private function storeOptions(string $directory): array
    {
        $help = (string) shell_exec(escapeshellarg(\PHP_BINARY) . ' ' . escapeshellarg("{$this->root}/bin/nexus") . ' serve --help 2>&1');

        return str_contains($help, '--data-dir') ? ["--data-dir={$directory}/data"] : [];
    }
}
