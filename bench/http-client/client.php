<?php

declare(strict_types=1);

/*
 * One load run of `make bench-http-client`, in a process of its own: a client keeps
 * --concurrency requests in flight against --url on kept-alive connections for --warmup, then
 * --duration seconds, and prints one JSON object: requests, seconds, latency percentiles (µs, from
 * issuing a request to having its whole body), errors and the process's CPU seconds.
 *
 * php bench/http-client/client.php --client=nexus|curl_multi|guzzle --url=URL [--concurrency=64] [--duration=5] [--warmup=1]
 */

use GuzzleHttp\Client;
use GuzzleHttp\Handler\CurlMultiHandler;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Pool;
use GuzzleHttp\Promise\PromiseInterface;
use Nexus\Bench\CommandLine;
use Nexus\Bench\CpuTime;
use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\HttpClient;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Http\Message\ResponseInterface;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$settings = ['client' => 'nexus', 'url' => '', 'concurrency' => '64', 'duration' => '5', 'warmup' => '1', 'expect' => ''];
[, $given] = CommandLine::parse(array_slice($argv, 1), [], $settings, "Usage: php bench/http-client/client.php --client=nexus|curl_multi|guzzle --url=URL [--concurrency=N] [--duration=S] [--warmup=S] [--expect=BODY]\n");
$settings = [...$settings, ...$given];
$url = $settings['url'];
$concurrency = max(1, (int) $settings['concurrency']);
$expect = $settings['expect'];

/**
 * @return array{int, int, list<int>} requests, errors, latencies in ns
 */
$run = match ($settings['client']) {
    'nexus' => nexus($url, $concurrency, $expect),
    'curl_multi' => curlMulti($url, $concurrency, $expect),
    'guzzle' => guzzle($url, $concurrency, $expect),
    default => throw new InvalidArgumentException("Unknown client {$settings['client']}."),
};

$warmup = $run((float) $settings['warmup']);
$cpuBefore = CpuTime::total();
$started = hrtime(true);
[$requests, $errors, $latencies] = $run((float) $settings['duration']);
$seconds = (hrtime(true) - $started) / 1e9;
$cpu = CpuTime::total() - $cpuBefore;
sort($latencies);
echo json_encode([
    'client' => $settings['client'],
    'concurrency' => $concurrency,
    'requests' => $requests,
    'all_requests' => $requests + $warmup[0],
    'errors' => $errors + $warmup[1],
    'seconds' => round($seconds, 4),
    'rps' => round($requests / $seconds, 1),
    'p50_us' => round(percentile($latencies, 0.50) / 1000, 1),
    'p99_us' => round(percentile($latencies, 0.99) / 1000, 1),
    'mean_us' => $latencies === [] ? 0.0 : round(array_sum($latencies) / count($latencies) / 1000, 1),
    'client_cpu_s' => round($cpu, 4),
    'jit' => Nexus\Bench\Environment::jitEnabled(),
], JSON_THROW_ON_ERROR) . "\n";

/**
 * @return Closure(float): array{int, int, list<int>}
 */
function nexus(string $url, int $concurrency, string $expect): Closure
{
    $loop = new Loop();
    $client = new HttpClient($loop, new ClientOptions(maxConnectionsPerOrigin: $concurrency, maxConnections: $concurrency));

    return static function (float $seconds) use ($loop, $client, $url, $concurrency, $expect): array {
        $end = hrtime(true) + (int) ($seconds * 1e9);
        $latencies = [];
        $requests = $errors = 0;
        $users = [];
        for ($i = 0; $i < $concurrency; ++$i) {
            $users[] = $loop->async(static function () use ($client, $url, $end, $expect, &$latencies, &$requests, &$errors): void {
                while (($start = hrtime(true)) < $end) {
                    try {
                        $response = $client->get($url)->await();
                        if ($response->status() !== 200 || ($expect !== '' && $response->body() !== $expect)) {
                            ++$errors;
                        }
                    } catch (Throwable) {
                        ++$errors;
                    }
                    $latencies[] = hrtime(true) - $start;
                    ++$requests;
                }
            });
        }
        Future::all($users)->await();

        return [$requests, $errors, $latencies];
    };
}

/**
 * @return Closure(float): array{int, int, list<int>}
 */
function curlMulti(string $url, int $concurrency, string $expect): Closure
{
    $multi = curl_multi_init();
    $handles = [];
    for ($i = 0; $i < $concurrency; ++$i) {
        $handle = curl_init($url);
        curl_setopt_array($handle, [CURLOPT_RETURNTRANSFER => true, CURLOPT_TCP_NODELAY => true, CURLOPT_HTTP_VERSION => CURL_HTTP_VERSION_1_1]);
        $handles[] = $handle;
    }

    return static function (float $seconds) use ($multi, $handles, $expect): array {
        $end = hrtime(true) + (int) ($seconds * 1e9);
        $latencies = [];
        $requests = $errors = 0;
        $started = [];
        foreach ($handles as $handle) {
            $started[spl_object_id($handle)] = hrtime(true);
            curl_multi_add_handle($multi, $handle);
        }
        $running = count($handles);
        while ($running > 0) {
            do {
                $status = curl_multi_exec($multi, $active);
            } while ($status === CURLM_CALL_MULTI_PERFORM);
            while (($info = curl_multi_info_read($multi)) !== false) {
                $handle = $info['handle'];
                \assert($handle instanceof CurlHandle);
                $now = hrtime(true);
                $latencies[] = $now - $started[spl_object_id($handle)];
                ++$requests;
                $body = curl_multi_getcontent($handle);
                if ($info['result'] !== CURLE_OK || curl_getinfo($handle, CURLINFO_RESPONSE_CODE) !== 200 || ($expect !== '' && $body !== $expect)) {
                    ++$errors;
                }
                curl_multi_remove_handle($multi, $handle);
                if ($now < $end) {
                    $started[spl_object_id($handle)] = hrtime(true);
                    curl_multi_add_handle($multi, $handle);
                } else {
                    --$running;
                }
            }
            if ($running > 0 && $active > 0) {
                curl_multi_select($multi, 0.05);
            }
        }

        return [$requests, $errors, $latencies];
    };
}

/**
 * @return Closure(float): array{int, int, list<int>}
 */
function guzzle(string $url, int $concurrency, string $expect): Closure
{
    $client = new Client(['handler' => HandlerStack::create(new CurlMultiHandler()), 'http_errors' => false]);

    return static function (float $seconds) use ($client, $url, $concurrency, $expect): array {
        $end = hrtime(true) + (int) ($seconds * 1e9);
        $latencies = [];
        $requests = $errors = 0;
        $work = static function () use ($client, $url, $end, $expect, &$latencies, &$requests, &$errors): Generator {
            while (hrtime(true) < $end) {
                yield static function (array $options) use ($client, $url, $expect, &$latencies, &$requests, &$errors): PromiseInterface {
                    $start = hrtime(true);
                    $promise = $client->getAsync($url);
                    $promise->then(
                        static function (ResponseInterface $response) use ($start, $expect, &$latencies, &$requests, &$errors): void {
                            $body = (string) $response->getBody();
                            if ($response->getStatusCode() !== 200 || ($expect !== '' && $body !== $expect)) {
                                ++$errors;
                            }
                            $latencies[] = hrtime(true) - $start;
                            ++$requests;
                        },
                        static function () use ($start, &$latencies, &$requests, &$errors): void {
                            ++$errors;
                            $latencies[] = hrtime(true) - $start;
                            ++$requests;
                        },
                    );

                    return $promise;
                };
            }
        };
        (new Pool($client, $work(), ['concurrency' => $concurrency]))->promise()->wait();

        return [$requests, $errors, $latencies];
    };
}

/**
 * @param list<int> $sorted
 */
function percentile(array $sorted, float $p): float
{
    if ($sorted === []) {
        return 0.0;
    }

    return (float) $sorted[(int) min(count($sorted) - 1, floor($p * count($sorted)))];
}
