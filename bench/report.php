<?php

declare(strict_types=1);

/*
 * Turns the results of `make bench` into docs/performance.md (between its bench:actor markers)
 * and docs/img/actor-bench.svg: php bench/report.php --help
 */

use Nexus\Bench\Environment;
use Nexus\Bench\MalformedResults;
use Nexus\Bench\PerformanceDoc;
use Nexus\Bench\Result;

require dirname(__DIR__) . '/vendor/autoload.php';

$root = dirname(__DIR__);
$settings = [
    'jit' => "{$root}/bench/results/actor-jit.json",
    'nojit' => "{$root}/bench/results/actor-nojit.json",
    'hotpath' => "{$root}/bench/results/hotpath-jit.txt",
    'doc' => "{$root}/docs/performance.md",
    'svg' => "{$root}/docs/img/actor-bench.svg",
    'jit-command' => 'php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/run.php --json=bench/results/actor-jit.json',
    'nojit-command' => 'php -d opcache.enable_cli=1 -d opcache.jit=off bench/run.php --json=bench/results/actor-nojit.json',
];
$usage = "Usage: php bench/report.php [--jit=FILE] [--nojit=FILE] [--hotpath=FILE] [--doc=FILE] [--svg=FILE] [--jit-command=TEXT] [--nojit-command=TEXT]\n"
    . "Defaults:\n" . implode('', array_map(static fn(string $k, string $v): string => "  --{$k}={$v}\n", array_keys($settings), $settings));

foreach (array_slice($argv, 1) as $argument) {
    if ($argument === '--help' || $argument === '-h') {
        echo $usage;
        exit(0);
    }
    if (preg_match('/^--([a-z-]+)=(.*)$/s', $argument, $match) !== 1 || !array_key_exists($match[1], $settings)) {
        fwrite(STDERR, "Unknown option '{$argument}'.\n{$usage}");
        exit(2);
    }
    $settings[$match[1]] = $match[2];
}

try {
    $jit = Result::readFile($settings['jit']);
    $noJit = Result::readFile($settings['nojit']);
} catch (MalformedResults $e) {
    fwrite(STDERR, $e->getMessage() . "\nRun the suite first: make bench\n");
    exit(1);
}
foreach ($jit as $result) {
    if (!$result->jit) {
        fwrite(STDERR, "Warning: {$settings['jit']} has {$result->case} measured without the JIT.\n");
        break;
    }
}

$hotPath = is_file($settings['hotpath']) ? (string) file_get_contents($settings['hotpath']) : null;
$document = @file_get_contents($settings['doc']);
if ($document === false) {
    fwrite(STDERR, "Cannot read {$settings['doc']}.\n");
    exit(1);
}

$svgDirectory = dirname($settings['svg']);
if (!is_dir($svgDirectory) && !@mkdir($svgDirectory, 0o777, true) && !is_dir($svgDirectory)) {
    fwrite(STDERR, "Cannot create {$svgDirectory}.\n");
    exit(1);
}

$doc = new PerformanceDoc($jit, $noJit);
$svgFromDoc = relativePath(dirname($settings['doc']), $settings['svg']);
$section = $doc->section(Environment::detect(), $settings['jit-command'], $settings['nojit-command'], date('Y-m-d H:i T'), $svgFromDoc, $hotPath);
try {
    $updated = PerformanceDoc::replaceSection($document, $section);
} catch (UnexpectedValueException $e) {
    fwrite(STDERR, "{$settings['doc']}: {$e->getMessage()}\n");
    exit(1);
}

if (@file_put_contents($settings['svg'], $doc->chart()) === false || @file_put_contents($settings['doc'], $updated) === false) {
    fwrite(STDERR, "Cannot write {$settings['svg']} or {$settings['doc']}.\n");
    exit(1);
}
echo "Updated {$settings['doc']} and {$settings['svg']}.\n";

function relativePath(string $from, string $to): string
{
    $fromParts = array_values(array_filter(explode('/', (string) realpath($from)), static fn(string $p): bool => $p !== ''));
    $toDirectory = realpath(dirname($to));
    if ($fromParts === [] || $toDirectory === false) {
        return $to;
    }
    $toParts = [...array_values(array_filter(explode('/', $toDirectory), static fn(string $p): bool => $p !== '')), basename($to)];
    $common = 0;
    while ($common < count($fromParts) && $common < count($toParts) - 1 && $fromParts[$common] === $toParts[$common]) {
        ++$common;
    }

    return str_repeat('../', count($fromParts) - $common) . implode('/', array_slice($toParts, $common));
}
