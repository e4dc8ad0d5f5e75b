<?php

declare(strict_types=1);

/*
 * The actor benchmark suite: php bench/run.php --help
 */

use Nexus\Bench\Environment;
use Nexus\Bench\Options;
use Nexus\Bench\Report;
use Nexus\Bench\Result;
use Nexus\Bench\Runner;
use Nexus\Bench\Suite;
use Nexus\Bench\UsageError;

require dirname(__DIR__) . '/vendor/autoload.php';

try {
    $options = Options::parse(array_slice($argv, 1));
} catch (UsageError $e) {
    fwrite(STDERR, $e->getMessage() . "\n\n" . Options::usage() . "\n");
    exit(2);
}
if ($options->help) {
    echo Options::usage(), "\n";
    exit(0);
}

$json = null;
if ($options->json !== null) {
    $directory = dirname($options->json);
    if (!is_dir($directory) && !@mkdir($directory, 0o777, true) && !is_dir($directory)) {
        fwrite(STDERR, "Cannot create the directory {$directory} for --json.\n");
        exit(2);
    }
    $json = @fopen($options->json, 'w');
    if ($json === false) {
        fwrite(STDERR, "Cannot write the results file {$options->json}.\n");
        exit(2);
    }
}

$environment = Environment::detect();
fwrite(STDERR, sprintf(
    "PHP %s, JIT %s, %d cores (%s)%s\n",
    $environment->php,
    $environment->jit ? 'on' : 'off',
    $environment->cores,
    $environment->cpu,
    $options->smoke ? ', smoke run' : '',
));

$outcome = (new Runner($options, STDERR))->run(Suite::cases(), static function (Result $result) use ($json): void {
    if ($json !== null) {
        fwrite($json, $result->toJson() . "\n");
    }
});
if ($json !== null) {
    fclose($json);
}

if ($outcome->results === [] && $outcome->failures === []) {
    fwrite(STDERR, "No case matches the filter.\n");
    exit(2);
}
if ($outcome->results !== []) {
    echo Report::table($outcome->results);
}
foreach ($outcome->failures as $case => $why) {
    fwrite(STDERR, "FAILED {$case}: {$why}\n");
}
exit($outcome->failures === [] ? 0 : 1);
