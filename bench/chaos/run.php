<?php

declare(strict_types=1);

/*
 * make chaos: the fault campaign (see bench/src/Chaos/Campaign.php and docs/reliability.md).
 *
 *     php bench/chaos/run.php [--short] [--duration=SECONDS] [--clients=N] [--seed=N]
 *                             [--no-postgres] [--no-redis] [--json=FILE] [--no-report]
 *
 * Prints a table of what the clients were told against what the servers hold afterwards and
 * exits 1 when an acknowledged operation was lost. A full run (not --short) also rewrites the
 * marked section of docs/reliability.md and docs/img/chaos-timeline.svg unless --no-report.
 */

use Nexus\Bench\Chaos\Campaign;
use Nexus\Bench\Chaos\CampaignSettings;
use Nexus\Bench\Chaos\ChaosReport;
use Nexus\Bench\CommandLine;
use Nexus\Bench\ReportFiles;

require __DIR__ . '/../../vendor/autoload.php';

$usage = "Usage: php bench/chaos/run.php [--short] [--duration=SECONDS] [--clients=N] [--seed=N] [--no-postgres] [--no-redis] [--json=FILE] [--no-report]\n";
[$flags, $options] = CommandLine::parse(
    array_slice($argv, 1),
    ['short' => false, 'no-postgres' => false, 'no-redis' => false, 'no-report' => false],
    ['duration' => '', 'clients' => '', 'seed' => '', 'json' => ''],
    $usage,
);
$base = $flags['short'] ? CampaignSettings::short() : new CampaignSettings();
foreach (['duration', 'clients', 'seed'] as $name) {
    if (isset($options[$name]) && !is_numeric($options[$name])) {
        fwrite(STDERR, "--{$name} needs a number, got '{$options[$name]}'.\n{$usage}");
        exit(2);
    }
}
$settings = new CampaignSettings(
    duration: (float) ($options['duration'] ?? $base->duration),
    warmUp: $base->warmUp,
    clients: (int) ($options['clients'] ?? $base->clients),
    counters: $base->counters,
    seed: (int) ($options['seed'] ?? $base->seed),
    postgres: !$flags['no-postgres'],
    redis: !$flags['no-redis'],
);
$root = dirname(__DIR__, 2);

fwrite(STDERR, sprintf("==> chaos: %.0f s of load on 2 workers with %d clients, seed %d (progress below)\n", $settings->duration, $settings->clients, $settings->seed));
$result = (new Campaign($root, $settings))->run();
$report = new ChaosReport($result);
echo "\n", $report->table();

$json = $options['json'] ?? ($flags['short'] ? '' : "{$root}/bench/results/chaos.json");
if ($json !== '') {
    @mkdir(dirname($json), 0o777, true);
    file_put_contents($json, json_encode($result, JSON_PRETTY_PRINT | JSON_THROW_ON_ERROR) . "\n");
}
if (!$flags['short'] && !$flags['no-report']) {
    $command = 'make chaos' . ($options === [] ? '' : ' (' . implode(' ', array_map(static fn(string $k, string $v): string => "--{$k}={$v}", array_keys($options), $options)) . ')');
    $error = ReportFiles::update(
        "{$root}/docs/reliability.md",
        "{$root}/docs/img/chaos-timeline.svg",
        static fn(string $document): string => ChaosReport::replaceSection($document, $report->section($command, date('Y-m-d'), 'img/chaos-timeline.svg')),
        $report->chart(),
    );
    fwrite(STDERR, $error === null ? "docs/reliability.md and docs/img/chaos-timeline.svg updated\n" : "report not written: {$error}\n");
}
if ($report->lost() !== 0) {
    fwrite(STDERR, "FAILED: {$report->lost()} acknowledged operations were lost\n");
    exit(1);
}
fwrite(STDERR, "chaos: ok, no acknowledged operation lost\n");
