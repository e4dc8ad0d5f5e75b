<?php

declare(strict_types=1);

/*
 * The open-model load generator of `make bench-db`, on its own:
 *   php bench/db/load.php --port=PORT --rate=R [--host=127.0.0.1] [--path=/bench] [--duration=5]
 *       [--warmup=1] [--max-in-flight=256] [--drain=5] [--out=FILE]
 * Prints the result as JSON (and writes it to --out), latencies in ms from the scheduled start.
 */

use Nexus\Bench\Db\LoadGenerator;
use Nexus\Runtime\Loop;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$options = ['host' => '127.0.0.1', 'port' => '', 'path' => '/bench', 'rate' => '', 'duration' => '5', 'warmup' => '1', 'max-in-flight' => '256', 'drain' => '5', 'out' => ''];
foreach (array_slice($argv, 1) as $argument) {
    if (preg_match('/^--([a-z-]+)=(.*)$/s', $argument, $match) !== 1 || !array_key_exists($match[1], $options)) {
        fwrite(STDERR, "Unknown option '{$argument}'. Options: --" . implode(', --', array_keys($options)) . "\n");
        exit(2);
    }
    $options[$match[1]] = $match[2];
}
foreach (['port', 'rate', 'duration', 'warmup', 'max-in-flight', 'drain'] as $name) {
    if (!is_numeric($options[$name]) || (float) $options[$name] < 0) {
        fwrite(STDERR, "--{$name} must be a number >= 0, got '{$options[$name]}'.\n");
        exit(2);
    }
}

$generator = new LoadGenerator(new Loop(), $options['host'], (int) $options['port'], $options['path'], (int) $options['max-in-flight'], (float) $options['drain']);
$result = $generator->run((float) $options['rate'], (float) $options['warmup'], (float) $options['duration']);
$json = json_encode($result->toArray(), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
if ($options['out'] !== '') {
    file_put_contents($options['out'], $json . "\n");
}
echo $json, "\n";
